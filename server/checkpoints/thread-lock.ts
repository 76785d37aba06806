// Per-thread mutual exclusion: a run's rollback capture, an optional linear
// rewrite, graph execution and the duration checkpoint write happen as one
// unit per thread, and so do admission cleanup (inside the run), Clean up
// of a thread and its expiry. The first stage is process-local (a promise
// chain per thread); on PostgreSQL, where several instances share one
// database, a second stage (`shared`) takes the thread's lock in the
// database too, so a run on instance B cannot start while instance A's
// cleanup or expiry of the same thread is between its judgment and its
// commit, and the other way round.
export type CrossInstanceLocks = {
  /** Runs `fn` holding the thread's lock across instances (waits for another instance's holder). */
  hold<T>(threadId: string, fn: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
};

export type ThreadLocks = { tails: Map<string, Promise<unknown>>; shared: CrossInstanceLocks | null };

export function createThreadLocks(shared: CrossInstanceLocks | null = null): ThreadLocks {
  return { tails: new Map(), shared };
}

/** Runs `fn` after every earlier holder of this thread's lock in this process has finished, then under the cross-instance lock when there is one. */
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
    return await (locks.shared ? locks.shared.hold(threadId, fn) : fn());
  } finally {
    release();
    if (locks.tails.get(threadId) === tail) locks.tails.delete(threadId);
  }
}

/** True while a holder (a run, a cleanup of the thread) holds or waits for the thread's lock in this process. */
export function threadLockBusy(locks: ThreadLocks, threadId: string): boolean {
  return locks.tails.has(threadId);
}
