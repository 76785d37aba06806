// One cleanup batch, all inside ONE writer transaction (IMMEDIATE on SQLite):
//  1. take the writer lock first, THEN re-read the record and check policy
//     revision, enablement, approval, the operation identity and the schema
//     version, then re-check the task's activity and pending-work gates;
//  2. update each row only when its metadata still equals what was read
//     (a foreground write in between wins: the row is counted `conflict`);
//  3. persist the cursor and the committed counts in the same transaction.
// updated_at/created_at are never touched: maintenance is not activity.
import "server-only";
import type { Clock } from "@/server/clock";
import { formatUtc } from "@/lib/time/rfc3339";
import type { RetentionRecord } from "../policy/policy-schema";
import { withRetentionRecordInTx } from "../policy/record";
import type { CompactionStore } from "../store";
import { checkTaskEligibility, type IneligibleReason } from "../eligibility/eligibility";
import type { ScanPosition } from "./scan";
import { STATEMENT_DEADLINE_MS, startDeadline } from "./statement-deadline";
import { addTally, createTally, kindOf, tallyOperation, type Tally } from "./tally";

/** A row read and reduced before the writer transaction. */
export type PreparedRow = {
  rowid: number;
  id: string;
  type: string;
  observed: string;
  /** Stored UTF-8 length of `observed` (from the page plan; no re-count). */
  bytes: number;
  next: string;
  removedFields: string[];
  removedBytes: number;
};

/** What the pass knows about itself (fixed for the pass). */
export type PassIdentity = {
  operationId: string;
  revision: number;
  cutoffMs: number;
  startedMs: number;
  schemaVersion: number;
  upperTaskId: string | null;
  upperMessageRowid: number | null;
};

export type GateFailure =
  | "settings_malformed"
  | "disabled"
  | "policy_changed"
  | "not_approved"
  | "operation_replaced"
  | "schema_changed";

export type BatchOutcome =
  | { outcome: "committed"; changedIds: string[]; committed: Tally; rows: number; bytes: number }
  | { outcome: "gated"; reason: GateFailure }
  | { outcome: "task_ineligible"; reason: IneligibleReason };

export type BatchInput = {
  store: CompactionStore;
  clock: Clock;
  pass: PassIdentity;
  taskId: string;
  rows: PreparedRow[];
  /** Counts committed so far (as stored) plus this batch's uncommitted progress. */
  committed: Tally;
  pending: Tally;
  /** The position after this batch. */
  next: ScanPosition;
  deadlineMs?: number;
};

/** The gates every batch re-checks inside its writer transaction. */
export function checkPassGates(tx: CompactionStore, record: RetentionRecord, pass: PassIdentity): GateFailure | null {
  const { policy, runtime } = record;
  if (!policy.enabled) return "disabled";
  if (policy.revision !== pass.revision) return "policy_changed";
  if (runtime.preparation.state !== "ready" || runtime.approvedRevision !== policy.revision) return "not_approved";
  if (runtime.activeOperation?.id !== pass.operationId) return "operation_replaced";
  if (tx.readSchemaVersion() !== pass.schemaVersion) return "schema_changed";
  return null;
}

/** The cursor and running operation as stored after a commit. */
export function withProgress(record: RetentionRecord, pass: PassIdentity, position: ScanPosition, tally: Tally): RetentionRecord {
  const next = structuredClone(record);
  next.runtime.schemaVersion = pass.schemaVersion;
  next.runtime.cursor = {
    operationId: pass.operationId,
    cutoff: formatUtc(pass.cutoffMs),
    afterTaskId: position.afterTaskId,
    afterSessionId: position.afterSessionId,
    afterMessageRowid: position.afterMessageRowid,
    upperTaskId: pass.upperTaskId,
    upperMessageRowid: pass.upperMessageRowid,
  };
  next.runtime.activeOperation = tallyOperation({
    tally,
    id: pass.operationId,
    kind: "cleanup",
    state: "running",
    startedMs: pass.startedMs,
    finishedMs: null,
    cutoffMs: pass.cutoffMs,
    revision: pass.revision,
  });
  return next;
}

/** Runs one batch; throws (after rollback) on a deadline overrun or SQLite error. */
export function runBatch(input: BatchInput): BatchOutcome {
  const { store, clock, pass, rows } = input;
  return store.writeTransaction((tx): BatchOutcome => {
    const deadline = startDeadline({ clock, limitMs: input.deadlineMs });
    return withRetentionRecordInTx(tx, ({ current, write }) => {
      if (current.state === "malformed") return { outcome: "gated", reason: "settings_malformed" };
      const gate = checkPassGates(tx, current.record, pass);
      if (gate) return { outcome: "gated", reason: gate };
      // Rows first, then the task's gates: a foreground write to one of them now waits for this commit.
      tx.lockRowsForRewrite?.(rows.map((row) => row.rowid));
      const eligibility = checkTaskEligibility({ store: tx, taskId: input.taskId, cutoffMs: pass.cutoffMs, clock });
      if (!eligibility.eligible) return { outcome: "task_ineligible", reason: eligibility.reason };

      const batch = createTally();
      const changedIds: string[] = [];
      let bytes = 0;
      for (const row of rows) {
        bytes += row.bytes;
        if (tx.replaceMetadataIfUnchanged(row)) {
          changedIds.push(row.id);
          batch.changedMessages += 1;
          batch.payloadBytes += row.removedBytes;
          const entry = (batch.byKind[kindOf(row.removedFields, row.type)] ??= { messages: 0, payloadBytes: 0 });
          entry.messages += 1;
          entry.payloadBytes += row.removedBytes;
        } else {
          batch.skipped.conflict = (batch.skipped.conflict ?? 0) + 1;
        }
        deadline.check();
      }
      const committed = createTally();
      addTally(committed, input.committed);
      addTally(committed, input.pending);
      addTally(committed, batch);
      write(withProgress(current.record, pass, input.next, committed), clock.now());
      deadline.check();
      return { outcome: "committed", changedIds, committed, rows: rows.length, bytes };
    });
  }, { deadlineMs: input.deadlineMs ?? STATEMENT_DEADLINE_MS });
}
