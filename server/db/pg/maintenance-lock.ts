// The cross-instance half of the maintenance guard on PostgreSQL (what the
// lock file beside the database is on SQLite): a session-level advisory lock,
// so a restore, backup or VACUUM on one instance and a compaction batch on
// another never overlap, and every instance's guard names the holder's kind
// (the Database card's "busy", 503 maintenance_busy, batches deferring). A
// second lock of the same class labels the kind; both live as long as the
// session, so a killed instance releases them with no cleanup step.
import type { MaintenanceKind } from "@/server/maintenance/guard";
import type { ProcessLock, ProcessLockHolder } from "@/server/maintenance/process-lock";
import type { Logger } from "@/server/log";
import type { SqlClient } from "./client";

// "main" in ASCII; objid 0 is the lock itself, 1.. label the holder's kind.
export const MAINTENANCE_LOCK_CLASS = 0x6d61696e;
const KINDS: readonly MaintenanceKind[] = ["backup", "restore", "reset", "vacuum", "optimize", "compaction"];

export function createPgMaintenanceLock(options: { client: SqlClient; log: Logger }): ProcessLock {
  const { client, log } = options;
  let mine: string | null = null;
  let label = 0;

  const warn = (error: unknown, what: string) => log.warn({ err: { name: (error as Error)?.name, code: (error as { code?: unknown })?.code } }, what);

  return {
    tryTake(request) {
      if (mine) return false;
      try {
        const taken = client.one<{ ok: boolean }>(`select pg_try_advisory_lock($1, 0) as ok`, [MAINTENANCE_LOCK_CLASS])?.ok === true;
        if (!taken) return false;
        label = KINDS.indexOf(request.kind) + 1;
        client.one(`select pg_advisory_lock($1, $2)`, [MAINTENANCE_LOCK_CLASS, label]);
        mine = request.id;
        return true;
      } catch (error) {
        // Fail closed: an instance that cannot reach the lock does not touch the database.
        warn(error, "maintenance lock check failed");
        return false;
      }
    },
    release(id) {
      if (mine !== id) return;
      mine = null;
      try {
        client.one(`select pg_advisory_unlock($1, $2)`, [MAINTENANCE_LOCK_CLASS, label]);
        client.one(`select pg_advisory_unlock($1, 0)`, [MAINTENANCE_LOCK_CLASS]);
      } catch (error) {
        // A lost session has released both already.
        warn(error, "maintenance lock release failed");
      }
    },
    holder() {
      try {
        const row = client.one<{ objid: number; pid: number }>(
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
  };
}
