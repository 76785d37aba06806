import { route } from "@/server/http/route";
import { messageIdRequest, threadIdParams } from "@/lib/checkpoints/api";
import { liveThreadService } from "@/server/checkpoints/service";
import { regenerate } from "@/server/checkpoints/threads";

export const POST = route({
  access: "admin",
  params: threadIdParams,
  body: messageIdRequest,
  handler: async ({ rt, params, body }) => regenerate(await liveThreadService(rt, params.id), params.id, body.messageId),
});
