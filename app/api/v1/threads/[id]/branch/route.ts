import { route } from "@/server/http/route";
import { messageIdRequest, threadIdParams } from "@/lib/checkpoints/api";
import { threadService } from "@/server/checkpoints/service";
import { branch } from "@/server/checkpoints/threads";

export const POST = route({
  access: "admin",
  params: threadIdParams,
  body: messageIdRequest,
  handler: ({ rt, params, body }) => branch(threadService(rt), params.id, body.messageId),
});
