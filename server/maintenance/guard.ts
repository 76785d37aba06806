import "server-only";
import { randomUUID } from "node:crypto";
import { AppError } from "@/server/errors";
import type { ProcessLock, UnverifiableLock } from "./process-lock";

/**
 * The shared maintenance admission guard (TPR-SCH-05): one in-process lease
 * for every operation that must not overlap with another — backup, restore,
 * reset, VACUUM, optimize and each compaction batch. It is independent of the
 * job tracker: it only answers "may I touch the database file now?".
 */
export type MaintenanceKind = "backup" | "restore" | "reset" | "vacuum" | "optimize" | "compaction" | "payload_restore";

export type LeaseRequest = { owner: string; kind: MaintenanceKind };

export type Lease = {
  readonly id: string;
  readonly owner: string;
  readonly kind: MaintenanceKind;
  /** True while this lease is the one holding the guard. */
  held(): boolean;
  /** Releases this lease; a no-op when it was already released. */
  release(): void;
};

export type LeaseHolder = { id: string; owner: string; kind: MaintenanceKind };

export type MaintenanceGuard = {
  /** A lease, or null when another operation holds the guard (callers defer). */
  tryAcquire(request: LeaseRequest): Promise<Lease | null>;
  /** A lease, or AppError maintenance_busy (503) when the guard is held. */
  acquireExclusive(request: LeaseRequest): Promise<Lease>;
  /** Runs fn under an exclusive lease and always releases it afterwards. */
  withExclusive<T>(request: LeaseRequest, fn: (lease: Lease) => Promise<T> | T): Promise<T>;
  /** Who holds the guard, for status displays; never a lease handle. */
  holder(): Promise<LeaseHolder | null>;
  /** The shared lock's holder when it names another host, which this process cannot check (see unverifiable-lock.ts). */
  unverifiableLock(): Promise<UnverifiableLock | null>;
  /** Removes that lock if it is still holder `id`; true when removed. */
  clearUnverifiableLock(id: string): Promise<boolean>;
};

export type MaintenanceGuardOptions = {
  /**
   * The lock shared with other processes on the same database (the server and
   * the operator CLI). Without it the guard only separates this process's
   * own operations.
   */
  processLock?: ProcessLock;
};

export function createMaintenanceGuard(options: MaintenanceGuardOptions = {}): MaintenanceGuard {
  const { processLock } = options;
  // The current lease is only reachable through this closure: a caller can
  // release the lease object it was given, never somebody else's.
  let current: { id: string; owner: string; kind: MaintenanceKind } | null = null;

  async function tryAcquire({ owner, kind }: LeaseRequest): Promise<Lease | null> {
    if (current !== null) return null;
    const entry = { id: randomUUID(), owner, kind };
    // In-process first (reserved while the other processes are asked), then
    // the shared lock: another process holding it is the same answer as a
    // local holder (defer, or maintenance_busy).
    current = entry;
    let taken = true;
    try {
      if (processLock) taken = await processLock.tryTake(entry);
    } catch {
      // Fail closed: a lock that cannot be asked is not ours.
      taken = false;
    }
    if (!taken) {
      if (current === entry) current = null;
      return null;
    }
    return Object.freeze({
      id: entry.id,
      owner,
      kind,
      held: () => current === entry,
      release: () => {
        if (current !== entry) return;
        current = null;
        processLock?.release(entry.id);
      },
    });
  }

  async function acquireExclusive(request: LeaseRequest): Promise<Lease> {
    const lease = await tryAcquire(request);
    if (lease) return lease;
    const kind = (await holder())?.kind ?? "maintenance";
    if (!current && (await unverifiableLock())) {
      throw new AppError("maintenance_busy", `A maintenance lock taken on another host (${kind}) holds the database; if nothing runs there any more, an admin can clear it on the Database page`);
    }
    throw new AppError("maintenance_busy", `Another maintenance operation (${kind}) is running; try again shortly`);
  }

  async function withExclusive<T>(request: LeaseRequest, fn: (lease: Lease) => Promise<T> | T): Promise<T> {
    const lease = await acquireExclusive(request);
    try {
      return await fn(lease);
    } finally {
      lease.release();
    }
  }

  async function holder(): Promise<LeaseHolder | null> {
    if (current) return { ...current };
    const other = await processLock?.holder();
    return other ? { id: other.id, owner: other.owner, kind: other.kind } : null;
  }

  async function unverifiableLock(): Promise<UnverifiableLock | null> {
    return (await processLock?.unverifiable?.()) ?? null;
  }

  async function clearUnverifiableLock(id: string): Promise<boolean> {
    return (await processLock?.clearUnverifiable?.(id)) ?? false;
  }

  return { tryAcquire, acquireExclusive, withExclusive, holder, unverifiableLock, clearUnverifiableLock };
}
