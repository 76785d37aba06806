import "server-only";
import type { AuditDetail } from "@/lib/audit/api";
import { unverifiableLockConfirmation, type ClearedLock } from "@/lib/database/api";
import { AppError } from "@/server/errors";
import type { Logger } from "@/server/log";
import type { MaintenanceGuard } from "./guard";

/**
 * Clears a maintenance lock that names another host (#26 item 7). Such a
 * lock is never judged stale here, since no process on this host can probe
 * another's pid: a lock file left by a container since replaced under a new
 * hostname, or planted by someone who can write the database's folder, would
 * keep every backup, restore, VACUUM and compaction batch busy for ever. The
 * stats report it to every member; an admin who knows nothing runs there any
 * more clears it, naming the lock shown (its id) and typing its host. The
 * lock is removed only if it is still that holder, so a lock someone takes
 * in the meantime is kept.
 */
export async function clearUnverifiableLock(options: { guard: MaintenanceGuard; id: string; confirm: string; log: Logger }): Promise<ClearedLock> {
  const lock = await options.guard.unverifiableLock();
  if (!lock) throw new AppError("not_found", "No maintenance lock of another host holds the database");
  if (lock.id !== options.id) throw new AppError("maintenance_lock_changed", "The maintenance lock is no longer the one shown; refresh and check it again");
  if (options.confirm !== unverifiableLockConfirmation(lock)) {
    throw new AppError("invalid_request", lock.host ? "Type the lock's host name exactly to confirm" : "Type the lock's id exactly to confirm");
  }
  if (!(await options.guard.clearUnverifiableLock(lock.id))) {
    throw new AppError("maintenance_lock_changed", "The maintenance lock changed while it was being cleared; refresh and check it again");
  }
  options.log.warn({ event: "maintenance_lock_cleared", lockId: lock.id, host: lock.host, kind: lock.kind, acquiredAt: lock.acquiredAt }, "a maintenance lock of another host was cleared by an admin");
  return { cleared: lock.id };
}

/** What the audit entry of a clear records: the host and operation the lock named when the admin asked. */
export async function lockAuditDetail(guard: MaintenanceGuard): Promise<AuditDetail> {
  const lock = await guard.unverifiableLock();
  return { lockHost: lock?.host ?? undefined, lockKind: lock?.kind ?? undefined };
}

/** Start of process: a lock of another host is logged once, so an operator reading the log knows why maintenance waits. */
export async function reportUnverifiableLock(options: { guard: MaintenanceGuard; log: Logger }): Promise<void> {
  const lock = await options.guard.unverifiableLock();
  if (!lock) return;
  options.log.warn(
    { event: "maintenance_lock_unverifiable", lockId: lock.id, host: lock.host, kind: lock.kind, acquiredAt: lock.acquiredAt },
    "a maintenance lock taken on another host holds the database; clear it on the Database page if nothing runs there",
  );
}
