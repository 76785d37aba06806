// A per-thread counter every retention deletion bumps (process-wide). Reads
// are not under the thread lock; a delta read that was walking ancestors
// while a reclaim landed compares the counter and reads once more.
const epochsKey = Symbol.for("workspace-retention.checkpoint-retention-epochs");
type GlobalWithEpochs = typeof globalThis & { [epochsKey]?: Map<string, number> };

function epochs(): Map<string, number> {
  const g = globalThis as GlobalWithEpochs;
  g[epochsKey] ??= new Map();
  return g[epochsKey];
}

export function retentionEpoch(threadId: string): number {
  return epochs().get(threadId) ?? 0;
}

export function bumpRetentionEpoch(threadId: string): void {
  const map = epochs();
  map.set(threadId, (map.get(threadId) ?? 0) + 1);
}

/**
 * Runs a read; when a retention deletion hit the thread meanwhile, runs it
 * once more (the retry reads the same pinned id, or resolves the head anew).
 */
export async function readRetryingOnce<T>(threadId: string, read: () => Promise<T>): Promise<T> {
  const before = retentionEpoch(threadId);
  const first = await read();
  return retentionEpoch(threadId) === before ? first : read();
}
