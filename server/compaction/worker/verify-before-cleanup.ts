// The backup check before a cleanup pass mutates anything (TPR-PREP-04/05).
// The first pass after each approval fully verifies the receipt (exists,
// size, SHA-256, integrity) under the maintenance lease and records that it
// did; later passes trust that record and only look that the file is still
// there. A failure is recorded with compare-and-swap on the receipt, the
// approved revision and the preparation state it checked, so an
// administrator's save that lands while a large backup is being hashed is
// never revoked by the stale result.
import "server-only";
import type { Clock } from "@/server/clock";
import type { Logger } from "@/server/log";
import type { MaintenanceGuard } from "@/server/maintenance/guard";
import type { MaintenanceStore } from "@/server/maintenance/store";
import {
  probeReceipt,
  verifyReceiptCached,
  type BackupReceipt,
  type VerificationCache,
  type VerifyResult,
} from "@/server/maintenance/backups/verify";
import { formatUtc } from "@/lib/time/rfc3339";
import { editRecord } from "../policy/operations";
import type { CompactionRecord } from "../policy/policy-schema";
import type { CompactionStore } from "../store";

export type VerifyBeforeCleanupOptions = {
  store: CompactionStore;
  maintenance: MaintenanceStore;
  dbFile: string;
  clock: Clock;
  guard: MaintenanceGuard;
  cache: VerificationCache;
  log: Logger;
  /** Full verification (test seam: lets a test land a save mid-hash). */
  verify?: typeof verifyReceiptCached;
};

export type VerifyBeforeCleanupResult = { ok: true } | { ok: false; code: string } | { ok: "deferred" };

type Checked = { policyRevision: number; approvedRevision: number | null; state: string; revision: number | null; receipt: BackupReceipt };

/** The record still holds exactly the approval and receipt that were checked. */
function unchanged(record: CompactionRecord, checked: Checked): boolean {
  const prep = record.runtime.preparation;
  const receipt = prep.receipt;
  return (
    record.policy.revision === checked.policyRevision &&
    record.runtime.approvedRevision === checked.approvedRevision &&
    prep.state === checked.state &&
    prep.revision === checked.revision &&
    prep.choice === "backup" &&
    receipt !== null &&
    "sha256" in receipt &&
    receipt.name === checked.receipt.name &&
    receipt.sha256 === checked.receipt.sha256
  );
}

export async function verifyBeforeCleanup(options: VerifyBeforeCleanupOptions): Promise<VerifyBeforeCleanupResult> {
  const { store, clock, log } = options;
  const read = await editRecord(store, clock.now(), (record) => ({ next: null, result: record }));
  const prep = read.runtime.preparation;
  if (prep.choice === "skip" && prep.receipt && "skippedAt" in prep.receipt) return { ok: true };
  if (prep.choice !== "backup") return { ok: false, code: "preparation_missing" };
  const receipt = prep.receipt;
  if (!receipt || !("sha256" in receipt)) return { ok: false, code: "backup_missing" };
  const checked: Checked = {
    policyRevision: read.policy.revision,
    approvedRevision: read.runtime.approvedRevision,
    state: prep.state,
    revision: prep.revision,
    receipt,
  };
  const trusted = Boolean(prep.verifiedAt);

  const lease = await options.guard.tryAcquire({ owner: "cleanup:verify", kind: "compaction" });
  if (!lease) return { ok: "deferred" };
  let result: VerifyResult;
  try {
    result = trusted
      ? await probeReceipt({ dbFile: options.dbFile, receipt })
      : await (options.verify ?? verifyReceiptCached)({ store: options.maintenance, dbFile: options.dbFile, receipt, cache: options.cache });
  } finally {
    lease.release();
  }

  const nowMs = clock.now();
  const recorded = await editRecord(store, nowMs, (record) => {
    if (!unchanged(record, checked)) return { next: null, result: false };
    if (result.ok) {
      if (trusted) return { next: null, result: true };
      record.runtime.preparation = { ...record.runtime.preparation, verifiedAt: formatUtc(nowMs) };
      return { next: record, result: true };
    }
    record.runtime.preparation = { ...record.runtime.preparation, state: "failed", errorCode: result.code, verifiedAt: null };
    record.runtime.approvedRevision = null;
    record.runtime.lastErrorCode = result.code;
    return { next: record, result: true };
  });
  if (!recorded) {
    // A save, cancel or new preparation committed meanwhile: this check
    // describes a record that no longer exists, so it decides nothing.
    log.info({ trusted }, "backup check superseded by a newer policy or preparation");
    return { ok: false, code: "policy_changed" };
  }
  if (result.ok) return { ok: true };
  log.warn({ code: result.code, trusted }, "backup receipt no longer verifies; cleanup blocked until prepared again");
  return { ok: false, code: result.code };
}
