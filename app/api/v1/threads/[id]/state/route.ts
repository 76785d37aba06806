import { route } from "@/server/http/route";
import { threadIdParams } from "@/lib/checkpoints/api";
import { liveThreadService } from "@/server/checkpoints/service";
import { readThreadState } from "@/server/checkpoints/threads";

export const GET = route({
  access: "member",
  params: threadIdParams,
  handler: async ({ rt, params }) => readThreadState(await liveThreadService(rt, params.id), params.id),
});
