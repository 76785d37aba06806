import { z } from "zod";
import { route } from "@/server/http/route";
import { readSourceOf } from "@/server/runtime";

// 200 with the output, 404 for unknown or non-shell messages, 410
// tool_payload_removed once compaction removed the payload. The row is read,
// scanned and encoded on a read thread and streamed from there: a 32 MiB row
// never holds this thread (server/workspace/read-thread/).
export const GET = route({
  access: "member",
  params: z.strictObject({ id: z.string().min(1) }),
  handler: ({ rt, params, request }) => rt.readThreads.answer(readSourceOf(rt), { kind: "shell-output", messageId: params.id }, request.signal),
});
