// GET /api/v1/threads/{id}/runs: the thread's run durations and the message
// ids each run added, answered from the run-history cache on the latest
// checkpoint (source "latest"/"cache") or a bounded scan ("scan").
import { z } from "zod";

export const runHistoryEntry = z.strictObject({ runId: z.string(), durationMs: z.number().nonnegative(), messageIds: z.array(z.string()) });
export const runHistoryResponse = z.strictObject({
  threadId: z.string(),
  source: z.enum(["cache", "latest", "scan"]),
  runs: z.array(runHistoryEntry),
});
export type RunHistoryResponse = z.infer<typeof runHistoryResponse>;
