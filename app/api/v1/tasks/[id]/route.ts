import { z } from "zod";
import { route } from "@/server/http/route";
import { readSourceOf } from "@/server/runtime";

// One task with its messages (text and tool summaries; outputs load lazily).
// Read and summarized on a read thread (server/workspace/read-thread/): the
// summary of a 32 MiB stored row took its whole parse on this thread.
export const GET = route({
  access: "member",
  params: z.strictObject({ id: z.string().min(1).max(200) }),
  handler: ({ rt, params, request }) => rt.readThreads.answer(readSourceOf(rt), { kind: "conversation", taskId: params.id }, request.signal),
});
