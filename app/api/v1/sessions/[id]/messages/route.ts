import { z } from "zod";
import { route } from "@/server/http/route";
import { appendMessageFromBody, MESSAGE_BODY_LIMIT } from "@/server/workspace/message-endpoints";

// Appends a message to a session. Raw body: metadata is read losslessly.
export const POST = route({
  access: "admin",
  params: z.strictObject({ id: z.string().min(1) }),
  rawBody: true,
  maxBodyBytes: MESSAGE_BODY_LIMIT,
  status: 201,
  handler: ({ rt, params, rawBody }) =>
    appendMessageFromBody(rt.stores.workspace, { sessionId: params.id, raw: rawBody ?? "", nowMs: rt.clock.now() }),
});
