import { z } from "zod";
import { route } from "@/server/http/route";
import { MESSAGE_BODY_LIMIT, replaceMetadataFromBody } from "@/server/workspace/message-endpoints";

// Replaces a message's metadata (the path the compaction guard protects).
// Raw body: metadata is read losslessly, never through JSON.parse.
export const PUT = route({
  access: "admin",
  params: z.strictObject({ id: z.string().min(1) }),
  rawBody: true,
  maxBodyBytes: MESSAGE_BODY_LIMIT,
  handler: ({ rt, params, rawBody }) =>
    replaceMetadataFromBody(rt.stores.workspace, { messageId: params.id, raw: rawBody ?? "", nowMs: rt.clock.now() }),
});
