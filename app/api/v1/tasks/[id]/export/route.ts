import { z } from "zod";
import { route } from "@/server/http/route";
import { readSourceOf } from "@/server/runtime";

// Any signed-in member may download a task as a workspace fixture. The
// document is read page by page from one snapshot on a read thread and
// streamed with backpressure (server/workspace/export/export-stream.ts).
export const GET = route({
  access: "member",
  params: z.strictObject({ id: z.string().min(1) }),
  handler: ({ rt, params, request }) => rt.readThreads.answer(readSourceOf(rt), { kind: "export", taskId: params.id }, request.signal),
});
