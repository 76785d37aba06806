import { route } from "@/server/http/route";
import { threadIdParams } from "@/lib/checkpoints/api";
import { threadService } from "@/server/checkpoints/service";
import { readThreadState } from "@/server/checkpoints/threads";

export const GET = route({
  access: "member",
  params: threadIdParams,
  handler: ({ rt, params }) => readThreadState(threadService(rt), params.id),
});
