// A per-thread counter every retention deletion bumps. Reads are not under
// the thread lock; a delta read that was walking ancestors while a reclaim
// landed compares the counter and reads once more. The counter lives in the
// database (checkpoint_epochs) and the store's deletion verbs bump it in the
// deletion's own transaction, so a deletion by another app instance on the
// same PostgreSQL database, or by the CLI on the same SQLite file, is seen
// like one of this process: a read that met the deletion reads the bump
// after it. A caller that passes no epochs gets no retry.
import type { CheckpointStore } from "../store";

export type RetentionEpochs = { current(threadId: string): Promise<number> };

/** The thread's epoch as the store reads it (one primary-key lookup). */
export function storeRetentionEpochs(store: Pick<CheckpointStore, "retentionEpoch">): RetentionEpochs {
  return { current: (threadId) => store.retentionEpoch(threadId) };
}

/**
 * Runs a read; when a retention deletion hit the thread meanwhile, runs it
 * once more (the retry reads the same pinned id, or resolves the head anew),
 * whether the deletion made the first read return or throw: a delta read
 * walking ancestors that meets a link Clean up just grafted out throws
 * checkpoint_lineage_integrity, which would be a false 409. A read that
 * throws with no deletion in between throws as before, and so does a retry.
 */
export async function readRetryingOnce<T>(epochs: RetentionEpochs | undefined, threadId: string, read: () => Promise<T>): Promise<T> {
  if (!epochs) return read();
  const before = await epochs.current(threadId);
  let first: T;
  try {
    first = await read();
  } catch (error) {
    if ((await epochs.current(threadId)) === before) throw error;
    return read();
  }
  return (await epochs.current(threadId)) === before ? first : read();
}
