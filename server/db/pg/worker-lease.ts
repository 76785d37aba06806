// Several app instances on one PostgreSQL database, one compaction worker:
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
import type { PgQueryable, PgSession } from "./pg-db";
import type { SessionSlot } from "./session-slot";

// "retentio" in ASCII: shared by every instance of this product.
export const WORKER_LOCK_KEY = 0x726574656e74;
export const LEASE_POLL_MS = 15_000;

export type LeaseCallbacks = {
  /**
   * Runs once per acquisition. `takeover`: the lock was held elsewhere (or
   * lost here) since this lease started, so another holder stopped and its
   * work waits: the new holder resumes it at once instead of after a start's
   * readiness delay.
   */
  acquired(info: { takeover: boolean }): void;
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
  // Refused once, or lost: the next acquisition takes over from a holder that stopped.
  let heldElsewhere = false;

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
        const answer = (await session.one<{ ok: boolean }>(`select pg_try_advisory_lock($1) as ok`, [WORKER_LOCK_KEY]))?.ok;
        ok = answer === true;
        if (answer === false) heldElsewhere = true;
      } catch (error) {
        log.warn({ err: { name: (error as Error)?.name, code: (error as { code?: unknown })?.code } }, "worker lease check failed");
      }
      trying = null;
      if (ok && session?.alive && !stopped) {
        holder = session;
        log.info({ takeover: heldElsewhere }, "this instance holds the compaction worker lease");
        callbacks?.acquired({ takeover: heldElsewhere });
        return;
      }
      schedule();
    })();
  };

  slot.onLost((lost) => {
    if (holder !== lost) return;
    holder = null;
    heldElsewhere = true;
    // Reported, never silent: until this instance polls the lock again, another instance may start its worker.
    log.error({ event: "worker_lease_lost" }, "the compaction worker lease's session was lost; its worker stops");
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

/**
 * Whether any instance's session holds the worker lease on this database
 * (a bigint advisory key shows in pg_locks as its high and low halves,
 * objsubid 1). False between a holder's death and the next holder's
 * acquisition: what the status calls waiting for a worker.
 */
export async function workerLeaseHeld(db: PgQueryable): Promise<boolean> {
  const row = await db.one<{ held: boolean }>(
    `select exists (select 1 from pg_locks where locktype = 'advisory' and granted and objsubid = 1
       and classid = $1 and objid = $2 and database = (select oid from pg_database where datname = current_database())) as held`,
    [Math.floor(WORKER_LOCK_KEY / 2 ** 32), WORKER_LOCK_KEY % 2 ** 32],
  );
  return row?.held === true;
}
