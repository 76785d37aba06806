// Several app instances on one PostgreSQL database, one retention worker:
// the worker runs only in the instance whose dedicated session holds a
// session-level advisory lock. The lock lives as long as that session, so an
// instance that is killed (or loses its connection) releases it with no
// cleanup step; the others poll with pg_try_advisory_lock and the first to
// get it starts its worker, which resumes the stored cursor
// (recoverInterrupted). Polling every 15 s keeps takeover well within a minute.
import type { Timers } from "@/server/clock";
import type { Logger } from "@/server/log";
import type { SqlClient } from "./client";

// "retentio" in ASCII: shared by every instance of this product.
export const WORKER_LOCK_KEY = 0x726574656e74;
export const LEASE_POLL_MS = 15_000;

export type WorkerLease = {
  /** Tries now and then every pollMs until the lock is held; `onAcquired` runs once per acquisition. */
  start(onAcquired: () => void): void;
  held(): boolean;
  /** Stops polling and releases the lock (closing the session releases it too). */
  stop(): void;
};

export function createWorkerLease(options: { client: SqlClient; timers: Timers; log: Logger; pollMs?: number }): WorkerLease {
  const { client, timers, log } = options;
  const pollMs = options.pollMs ?? LEASE_POLL_MS;
  let holding = false;
  let stopped = false;
  let timer: unknown = null;

  const tryAcquire = (onAcquired: () => void) => {
    timer = null;
    if (stopped || holding) return;
    try {
      holding = client.one<{ ok: boolean }>(`select pg_try_advisory_lock($1) as ok`, [WORKER_LOCK_KEY])?.ok === true;
    } catch (error) {
      log.warn({ err: { name: (error as Error).name, code: (error as { code?: unknown }).code } }, "worker lease check failed");
    }
    if (holding) {
      log.info("this instance holds the retention worker lease");
      onAcquired();
      return;
    }
    timer = timers.setTimeout(() => tryAcquire(onAcquired), pollMs);
  };

  return {
    start(onAcquired) {
      if (stopped || holding || timer) return;
      tryAcquire(onAcquired);
    },
    held: () => holding,
    stop() {
      if (stopped) return;
      stopped = true;
      if (timer) timers.clearTimeout(timer);
      timer = null;
      if (holding) {
        try {
          client.one(`select pg_advisory_unlock($1)`, [WORKER_LOCK_KEY]);
        } catch {
          // A lost session has released it already.
        }
      }
      holding = false;
    },
  };
}
