import { route } from "@/server/http/route";
import { HISTORY_LIMIT_MAX, historyRequest, threadIdParams } from "@/lib/checkpoints/api";
import { liveThreadService } from "@/server/checkpoints/service";
import { readThreadHistory } from "@/server/checkpoints/threads";

/** A read with a body: members may call it. 0 -> [], larger limits clamp to 100. */
export const POST = route({
  access: "member",
  readOnly: true,
  params: threadIdParams,
  body: historyRequest,
  handler: async ({ rt, params, body }) =>
    readThreadHistory(await liveThreadService(rt, params.id), params.id, Math.min(body.limit ?? HISTORY_LIMIT_MAX, HISTORY_LIMIT_MAX)),
});
