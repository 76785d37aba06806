// A per-thread counter every retention deletion bumps. Reads are not under
// the thread lock; a delta read that was walking ancestors while a reclaim
// landed compares the counter and reads once more. The counter only means
// something when deletions and reads share one: the runtime owns it, and a
// caller that passes none gets no bump and no retry.
export type RetentionEpochs = { counts: Map<string, number> };

export function createRetentionEpochs(): RetentionEpochs {
  return { counts: new Map() };
}

export function retentionEpoch(epochs: RetentionEpochs | undefined, threadId: string): number {
  return epochs?.counts.get(threadId) ?? 0;
}

export function bumpRetentionEpoch(epochs: RetentionEpochs | undefined, threadId: string): void {
  if (epochs) epochs.counts.set(threadId, (epochs.counts.get(threadId) ?? 0) + 1);
}

/**
 * Runs a read; when a retention deletion hit the thread meanwhile, runs it
 * once more (the retry reads the same pinned id, or resolves the head anew).
 */
export async function readRetryingOnce<T>(epochs: RetentionEpochs | undefined, threadId: string, read: () => Promise<T>): Promise<T> {
  const before = retentionEpoch(epochs, threadId);
  const first = await read();
  return retentionEpoch(epochs, threadId) === before ? first : read();
}
