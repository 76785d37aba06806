import { audited } from "@/server/audit/record";
import { route } from "@/server/http/route";
import { startOperationBody } from "@/lib/checkpoints/api";
import { startCheckpointOperation } from "@/server/checkpoints/cleanup/service";

export const POST = route({
  access: "admin",
  body: startOperationBody,
  status: 202,
  handler: ({ rt, user }) =>
    audited(rt, { actor: user!.id, kind: "checkpoints.cleanup", detail: ({ operationId }) => ({ operationId }), failureDetail: {} }, () =>
      startCheckpointOperation(rt, "cleanup"),
    ),
});
