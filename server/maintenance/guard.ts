import "server-only";
import { randomUUID } from "node:crypto";
import { AppError } from "@/server/errors";
import type { ProcessLock } from "./process-lock";

/**
 * The shared maintenance admission guard (TPR-SCH-05): one in-process lease
 * for every operation that must not overlap with another — backup, restore,
 * reset, VACUUM, optimize and each compaction batch. It is independent of the
 * job tracker: it only answers "may I touch the database file now?".
 */
export type MaintenanceKind = "backup" | "restore" | "reset" | "vacuum" | "optimize" | "compaction";

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
  tryAcquire(request: LeaseRequest): Lease | null;
  /** A lease, or AppError maintenance_busy (503) when the guard is held. */
  acquireExclusive(request: LeaseRequest): Lease;
  /** Runs fn under an exclusive lease and always releases it afterwards. */
  withExclusive<T>(request: LeaseRequest, fn: (lease: Lease) => Promise<T> | T): Promise<T>;
  /** Who holds the guard, for status displays; never a lease handle. */
  holder(): LeaseHolder | null;
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

  function tryAcquire({ owner, kind }: LeaseRequest): Lease | null {
    if (current !== null) return null;
    const entry = { id: randomUUID(), owner, kind };
    // In-process first, then the file: another process holding it is the
    // same answer as a local holder (defer, or maintenance_busy).
    if (processLock && !processLock.tryTake(entry)) return null;
    current = entry;
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

  function acquireExclusive(request: LeaseRequest): Lease {
    const lease = tryAcquire(request);
    if (lease) return lease;
    const kind = holder()?.kind ?? "maintenance";
    throw new AppError("maintenance_busy", `Another maintenance operation (${kind}) is running; try again shortly`);
  }

  async function withExclusive<T>(request: LeaseRequest, fn: (lease: Lease) => Promise<T> | T): Promise<T> {
    const lease = acquireExclusive(request);
    try {
      return await fn(lease);
    } finally {
      lease.release();
    }
  }

  function holder(): LeaseHolder | null {
    if (current) return { ...current };
    const other = processLock?.holder();
    return other ? { id: other.id, owner: other.owner, kind: other.kind } : null;
  }

  return { tryAcquire, acquireExclusive, withExclusive, holder };
}
