import { audited } from "@/server/audit/record";
import { route } from "@/server/http/route";
import { runOperationBody } from "@/lib/checkpoints/api";
import { startCheckpointOperation } from "@/server/checkpoints/cleanup/service";

export const POST = route({
  access: "admin",
  body: runOperationBody,
  status: 202,
  handler: ({ rt, user, body }) =>
    audited(rt, { actor: user!.id, kind: "checkpoints.cleanup", detail: ({ operationId }) => ({ operationId }), failureDetail: {} }, () =>
      startCheckpointOperation(rt, "cleanup", { analysisId: body.analysisId }),
    ),
});
