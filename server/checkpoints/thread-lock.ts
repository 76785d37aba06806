// Per-thread mutual exclusion inside one process: a run's rollback capture,
// an optional linear rewrite, graph execution and the duration checkpoint
// write happen as one unit per thread.
export type ThreadLocks = { tails: Map<string, Promise<unknown>> };

export function createThreadLocks(): ThreadLocks {
  return { tails: new Map() };
}

/** Runs `fn` after every earlier holder of this thread's lock has finished. */
export async function withThreadLock<T>(locks: ThreadLocks, threadId: string, fn: () => Promise<T>): Promise<T> {
  const previous = locks.tails.get(threadId) ?? Promise.resolve();
  let release!: () => void;
  const mine = new Promise<void>((resolve) => {
    release = resolve;
  });
  const tail = previous.then(() => mine);
  locks.tails.set(threadId, tail);
  try {
    await previous.catch(() => undefined);
    return await fn();
  } finally {
    release();
    if (locks.tails.get(threadId) === tail) locks.tails.delete(threadId);
  }
}

/** True while a holder (a run, a cleanup of the thread) holds or waits for the thread's lock in this process. */
export function threadLockBusy(locks: ThreadLocks, threadId: string): boolean {
  return locks.tails.has(threadId);
}
