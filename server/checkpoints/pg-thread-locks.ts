// The cross-instance stage of the thread locks on PostgreSQL (thread-lock.ts):
// a session-level advisory lock keyed by the thread (two-key form: its own
// key space, apart from the single-key writer and migration locks), held for
// as long as the run, cleanup or expiry of the thread takes. A run spans many
// transactions of the saver (each on some pooled session), so the lock
// cannot be transaction-scoped, and a pooled session held for a whole run
// would shrink the pool the run itself writes through. Instead:
// - one dedicated session per instance takes every uncontended lock with
//   pg_try_advisory_lock (never blocks, so one busy thread never delays
//   another's lock) and releases it with pg_advisory_unlock;
// - a lock another instance holds is waited for on a session of its own
//   (pg_advisory_lock, no statement or lock timeout: the holder may be a long
//   run), which holds it for the holder's work and releases it by closing.
// A session that dies releases its locks with it (the server ends them), so
// a killed instance never leaves a thread locked. Hash collisions of two
// thread ids only serialize the two threads, and the process-local stage
// runs first, so the dedicated session takes a thread's lock once at a time.
import type { PgDb, PgSession } from "@/server/db/pg/pg-db";
import type { Logger } from "@/server/log";
import type { CrossInstanceLocks } from "./thread-lock";

/** The advisory lock class of thread locks: "thrd". */
export const THREAD_LOCK_CLASS = 0x74687264;

const TRY_LOCK = `select pg_try_advisory_lock($1, hashtext($2)) as ok`;
const LOCK = `select pg_advisory_lock($1, hashtext($2))`;
const UNLOCK = `select pg_advisory_unlock($1, hashtext($2))`;

export function createPgThreadLocks(options: { db: PgDb; log?: Logger }): CrossInstanceLocks {
  const { db, log } = options;
  let shared: Promise<PgSession> | null = null;
  const waiting = new Set<PgSession>();
  let closed = false;

  const sharedSession = (): Promise<PgSession> => {
    if (shared) return shared;
    const opening = db.session("thread locks");
    shared = opening;
    opening.then(
      (session) =>
        session.onLost((error) => {
          if (shared === opening) shared = null;
          // The locks it held are gone: holders on this instance go on unprotected until they finish.
          log?.warn({ err: { name: error.name } }, "the thread lock session was lost; the next lock opens a new one");
        }),
      () => {
        if (shared === opening) shared = null;
      },
    );
    return opening;
  };

  const waitOnOwnSession = async <T>(threadId: string, fn: () => Promise<T>): Promise<T> => {
    const session = await db.session("thread lock wait");
    waiting.add(session);
    try {
      await session.exec("set statement_timeout = 0; set lock_timeout = 0");
      await session.query(LOCK, [THREAD_LOCK_CLASS, threadId]);
      return await fn();
    } finally {
      waiting.delete(session);
      // Closing the session releases its lock.
      await session.close();
    }
  };

  return {
    async hold(threadId, fn) {
      if (closed) throw new Error("the thread locks are closed");
      const session = await sharedSession();
      const taken = await session.one<{ ok: boolean }>(TRY_LOCK, [THREAD_LOCK_CLASS, threadId]);
      if (!taken?.ok) return waitOnOwnSession(threadId, fn);
      try {
        return await fn();
      } finally {
        if (session.alive) {
          await session.query(UNLOCK, [THREAD_LOCK_CLASS, threadId]).catch(async (error: unknown) => {
            // A lock that cannot be released must not outlive this holder: the session goes, and its locks with it.
            log?.warn({ err: { name: (error as Error)?.name } }, "releasing a thread lock failed; closing the thread lock session");
            if (shared && (await shared.catch(() => null)) === session) shared = null;
            await session.close();
          });
        }
      }
    },
    async close() {
      closed = true;
      const opening = shared;
      shared = null;
      await Promise.all([...waiting].map((session) => session.close()));
      const session = await opening?.catch(() => null);
      await session?.close();
    },
  };
}
