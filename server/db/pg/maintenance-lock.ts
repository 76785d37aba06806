// The cross-instance half of the maintenance guard on PostgreSQL (what the
// lock file beside the database is on SQLite): a session-level advisory lock
// on a dedicated session of its own, so a restore, backup or VACUUM on one
// instance and a compaction batch on another never overlap, and every
// instance's guard names the holder's kind (the Database card's "busy", 503
// maintenance_busy, batches deferring). A second lock of the same class
// labels the kind; both live as long as the session, so a killed instance
// releases them with no cleanup step.
import type { MaintenanceKind } from "@/server/maintenance/guard";
import type { ProcessLock, ProcessLockHolder } from "@/server/maintenance/process-lock";
import type { Logger } from "@/server/log";
import type { PgSession } from "./pg-db";
import type { SessionSlot } from "./session-slot";

// "main" in ASCII; objid 0 is the lock itself, 1.. label the holder's kind.
export const MAINTENANCE_LOCK_CLASS = 0x6d61696e;
// Appended only: a label is the kind's position, shared by instances of different versions.
const KINDS: readonly MaintenanceKind[] = ["backup", "restore", "reset", "vacuum", "optimize", "compaction", "payload_restore"];

export type PgMaintenanceLock = ProcessLock & { close(): Promise<void> };

export function createPgMaintenanceLock(options: { slot: SessionSlot; log: Logger }): PgMaintenanceLock {
  const { slot, log } = options;
  let mine: { id: string; label: number; session: PgSession } | null = null;
  // Taking is one exchange at a time: a second request waits for the first's answer.
  let taking = false;

  const warn = (error: unknown, what: string) => log.warn({ err: { name: (error as Error)?.name, code: (error as { code?: unknown })?.code } }, what);

  slot.onLost((lost) => {
    if (mine?.session !== lost) return;
    // The server released both locks with the session: this instance no longer holds the guard across instances.
    log.error({ kind: KINDS[mine.label - 1] }, "the maintenance lock's session was lost while held");
    mine = null;
  });

  return {
    async tryTake(request) {
      if (mine || taking) return false;
      taking = true;
      try {
        const session = await slot.get();
        const taken = (await session.one<{ ok: boolean }>(`select pg_try_advisory_lock($1, 0) as ok`, [MAINTENANCE_LOCK_CLASS]))?.ok === true;
        if (!taken) return false;
        const label = KINDS.indexOf(request.kind) + 1;
        await session.one(`select pg_advisory_lock($1, $2)`, [MAINTENANCE_LOCK_CLASS, label]);
        mine = { id: request.id, label, session };
        return true;
      } catch (error) {
        // Fail closed: an instance that cannot reach the lock does not touch the database.
        warn(error, "maintenance lock check failed");
        return false;
      } finally {
        taking = false;
      }
    },
    release(id) {
      if (mine?.id !== id) return;
      const { session, label } = mine;
      mine = null;
      // Queued on the session: a later tryTake there runs after it.
      session.exec(`select pg_advisory_unlock(${MAINTENANCE_LOCK_CLASS}, ${label}); select pg_advisory_unlock(${MAINTENANCE_LOCK_CLASS}, 0)`).catch((error: unknown) => {
        // A lost session has released both already.
        warn(error, "maintenance lock release failed");
      });
    },
    async holder() {
      try {
        const session = await slot.get();
        const row = await session.one<{ objid: number; pid: number }>(
          `select l.objid::text::int as objid, l.pid from pg_locks l
            where l.locktype = 'advisory' and l.granted and l.classid = $1::text::oid and l.objid::text::int > 0
              and l.database = (select oid from pg_database where datname = current_database())
              and l.pid <> pg_backend_pid()
            limit 1`,
          [MAINTENANCE_LOCK_CLASS],
        );
        const kind = row ? KINDS[row.objid - 1] : undefined;
        if (!row || !kind) return null;
        const holder: ProcessLockHolder = { id: `pg:${row.pid}`, owner: "another instance", kind, pid: row.pid, token: "", host: "", acquiredAt: "" };
        return holder;
      } catch (error) {
        warn(error, "maintenance lock holder check failed");
        return null;
      }
    },
    close: () => slot.close(),
  };
}
