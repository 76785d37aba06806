// The preparation backup stays on disk while it is the receipt of the
// current approval: manual-backup rotation skips it and deleting it by hand
// needs a typed confirmation (TPR-PREP-04: compaction then needs a new
// preparation, which the next pass reports as backup_missing).
import "server-only";
import { readCompactionRecord } from "./policy/record";
import type { CompactionStore } from "./store";

/** The backup names compaction relies on right now (zero or one). */
export async function pinnedBackupNames(store: CompactionStore): Promise<string[]> {
  const read = await readCompactionRecord(store);
  if (read.state === "malformed") return [];
  const { policy, runtime } = read.record;
  const prep = runtime.preparation;
  const receipt = prep.receipt;
  const approved = policy.enabled && prep.state === "ready" && runtime.approvedRevision === policy.revision;
  return approved && prep.choice === "backup" && receipt && "name" in receipt ? [receipt.name] : [];
}
