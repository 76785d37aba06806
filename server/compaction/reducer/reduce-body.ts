// The JS reducer on a body as the store read it: a value that is not text
// (a BLOB, NULL) is skipped `not_text`, never parsed or rewritten; text is
// reduced in the encoding the store read it in (bytes for text that is not
// valid UTF-8), so the result writes back byte-exact. Cleanup and analysis
// both come through here.
import "server-only";
import type { RowSkipReason } from "@/lib/compaction/skip-reasons";
import type { RowBody } from "../store";
import { reduceToolPayload, type ReduceResult } from "./reducer";

export type BodyResult = ReduceResult | { outcome: "skipped"; reason: Extract<RowSkipReason, "not_text"> };

export function reduceBody(row: RowBody, removedAt: string): BodyResult {
  if (row.metadata === null) return { outcome: "skipped", reason: "not_text" };
  return reduceToolPayload({ type: row.type, metadata: row.metadata, removedAt, encoding: row.encoding });
}
