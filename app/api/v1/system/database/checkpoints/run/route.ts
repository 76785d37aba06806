import { route } from "@/server/http/route";
import { startOperationBody } from "@/lib/checkpoints/api";
import { startCheckpointOperation } from "@/server/checkpoints/cleanup/service";

export const POST = route({
  access: "admin",
  body: startOperationBody,
  status: 202,
  handler: ({ rt }) => startCheckpointOperation(rt, "cleanup"),
});
