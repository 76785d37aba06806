// Several app instances on one PostgreSQL database, one retention worker:
// the worker runs only in the instance whose dedicated session holds a
// session-level advisory lock. The lock lives as long as that session, so an
// instance that is killed (or loses its connection) releases it with no
// cleanup step; the others poll with pg_try_advisory_lock and the first to
// get it starts its worker, which resumes the stored cursor
// (recoverInterrupted). Polling every 15 s keeps takeover well within a minute.
// The session is this lease's own (a SessionSlot): when it is lost, so is the
// lock, and the holder is told at once (its worker must stop: another
// instance may take the lease now) and polls again on a new session.
import type { Timers } from "@/server/clock";
import type { Logger } from "@/server/log";
import type { PgSession } from "./pg-db";
import type { SessionSlot } from "./session-slot";

// "retentio" in ASCII: shared by every instance of this product.
export const WORKER_LOCK_KEY = 0x726574656e74;
export const LEASE_POLL_MS = 15_000;

export type LeaseCallbacks = {
  /** Runs once per acquisition. */
  acquired(): void;
  /** Runs when a held lease's session is lost (the server released the lock with it). */
  lost(): void;
};

export type WorkerLease = {
  /** Tries now and then every pollMs until the lock is held; polls again after a loss. */
  start(callbacks: LeaseCallbacks): void;
  held(): boolean;
  /** Stops polling and releases the lock, closing the session. */
  stop(): Promise<void>;
};

export function createWorkerLease(options: { slot: SessionSlot; timers: Timers; log: Logger; pollMs?: number }): WorkerLease {
  const { slot, timers, log } = options;
  const pollMs = options.pollMs ?? LEASE_POLL_MS;
  let holder: PgSession | null = null;
  let callbacks: LeaseCallbacks | null = null;
  let stopped = false;
  let timer: unknown = null;
  let trying: Promise<void> | null = null;

  const schedule = () => {
    if (stopped || holder || timer) return;
    timer = timers.setTimeout(() => {
      timer = null;
      tryAcquire();
    }, pollMs);
  };

  const tryAcquire = () => {
    if (stopped || holder || trying) return;
    trying = (async () => {
      let session: PgSession | null = null;
      let ok = false;
      try {
        session = await slot.get();
        ok = (await session.one<{ ok: boolean }>(`select pg_try_advisory_lock($1) as ok`, [WORKER_LOCK_KEY]))?.ok === true;
      } catch (error) {
        log.warn({ err: { name: (error as Error)?.name, code: (error as { code?: unknown })?.code } }, "worker lease check failed");
      }
      trying = null;
      if (ok && session?.alive && !stopped) {
        holder = session;
        log.info("this instance holds the retention worker lease");
        callbacks?.acquired();
        return;
      }
      schedule();
    })();
  };

  slot.onLost((lost) => {
    if (holder !== lost) return;
    holder = null;
    // Reported, never silent: until this instance polls the lock again, another instance may start its worker.
    log.error({ event: "worker_lease_lost" }, "the retention worker lease's session was lost; its worker stops");
    callbacks?.lost();
    schedule();
  });

  return {
    start(given) {
      if (stopped || callbacks) return;
      callbacks = given;
      tryAcquire();
    },
    held: () => holder !== null && holder.alive,
    async stop() {
      if (stopped) return;
      stopped = true;
      if (timer) timers.clearTimeout(timer);
      timer = null;
      await trying;
      const session = holder;
      holder = null;
      if (session?.alive) {
        try {
          await session.one(`select pg_advisory_unlock($1)`, [WORKER_LOCK_KEY]);
        } catch {
          // A lost session has released it already.
        }
      }
      // Closing the session releases the lock too.
      await slot.close();
    },
  };
}
