// One cleanup batch, all inside ONE writer transaction (IMMEDIATE on SQLite).
// A batch spans sessions and tasks (sized by work: batch-size.ts):
//  1. take the writer lock first, THEN read the record once and check policy
//     revision, enablement, approval, the operation identity and the schema
//     version, then re-check each task of the batch once, from indexed facts
//     only (constant time: eligibility/recheck.ts); a task that turned
//     ineligible falls out of the batch before any write, the others go on;
//  2. update each row (PostgreSQL: all of them in one statement) only when
//     its metadata still equals what was read:
//     the whole text for rows the JS reducer judged, the version read with
//     the text (updated_at and byte length) for rows SQL judged and huge
//     rows (prepare-page.ts); a foreground write in between wins and the row
//     is counted `conflict`;
//  3. persist the cursor (the position after the batch's last row, so the
//     stored position is always a prefix of work fully done) and the
//     committed counts in the same transaction.
// updated_at/created_at are never touched: maintenance is not activity.
import "server-only";
import type { Clock } from "@/server/clock";
import { formatUtc } from "@/lib/time/rfc3339";
import type { CompactionRecord } from "../policy/policy-schema";
import { withCompactionRecordInTx } from "../policy/record";
import type { StoredEncoding } from "../reducer/reducer";
import type { CompactionStore } from "../store";
import type { IneligibleReason } from "../eligibility/eligibility";
import { recheckTaskEligibility, type TaskSnapshot } from "../eligibility/recheck";
import { ELIGIBILITY_BUDGET_MS } from "../eligibility/eligibility";
import type { ScanPosition } from "./scan";
import { STATEMENT_DEADLINE_MS, startDeadline } from "./statement-deadline";
import { addTally, createTally, kindOf, tallyOperation, type Tally } from "./tally";

/** A row read and reduced before the writer transaction. */
export type PreparedRow = {
  rowid: number;
  id: string;
  type: string;
  /**
   * The row's version when it was read (updated_at text, with `bytes`): the
   * row is written only while both are unchanged. The guard of rows SQL
   * judged (their text never reached JS) and of huge rows the reducer judged
   * (prepare-page.ts).
   */
  updatedAt: string;
  /** The text the reducer judged, below WHOLE_TEXT_GUARD_MAX_BYTES: written only while the stored text still equals it. */
  observed: string | null;
  /** The stored row version read with the text, where the engine has one (RowBody.tupleVersion): written only while it is unchanged. */
  tupleVersion?: string;
  /** How `observed` and `next` hold the stored bytes ("bytes": text that is not valid UTF-8, written back byte for byte). */
  encoding: StoredEncoding;
  /** Stored UTF-8 length of the text judged. */
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

/** A task that fell out of a batch in its writer transaction. */
export type DroppedTask = { taskId: string; reason: IneligibleReason };

export type BatchOutcome =
  | { outcome: "committed"; changedIds: string[]; committed: Tally; position: ScanPosition; dropped: DroppedTask[]; rows: number; bytes: number }
  | { outcome: "gated"; reason: GateFailure };

/** One task's rows in a batch, with what its full probe saw. */
export type BatchGroup = {
  taskId: string;
  /** What the full probe of the task saw (read before its batches, outside the writer). */
  snapshot: TaskSnapshot;
  rows: PreparedRow[];
  /** Uncommitted counts this task takes back when it falls out: its rows counted eligible, and the task itself if counted eligible since the last commit. */
  eligibleMessages: number;
  eligibleTask: boolean;
};

export type BatchInput = {
  store: CompactionStore;
  clock: Clock;
  pass: PassIdentity;
  /** The batch's rows by task, in walk order. */
  groups: BatchGroup[];
  /** Counts committed so far (as stored) plus the uncommitted progress up to `next`. */
  committed: Tally;
  pending: Tally;
  /** The position after this batch's last row (everything before it is done once this commits). */
  next: ScanPosition;
  /**
   * The cursor this pass last committed (or started from): the stored one
   * must still be it. Another worker running the same operation since (a
   * takeover while this one had not yet seen its lease go) moved it, and
   * this batch would write its stale counts over that worker's.
   */
  from?: ScanPosition;
  deadlineMs?: number;
};

/** The gates every batch re-checks inside its writer transaction. */
export async function checkPassGates(tx: CompactionStore, record: CompactionRecord, pass: PassIdentity): Promise<GateFailure | null> {
  const { policy, runtime } = record;
  if (!policy.enabled) return "disabled";
  if (policy.revision !== pass.revision) return "policy_changed";
  if (runtime.preparation.state !== "ready" || runtime.approvedRevision !== policy.revision) return "not_approved";
  if (runtime.activeOperation?.id !== pass.operationId) return "operation_replaced";
  if ((await tx.readSchemaVersion()) !== pass.schemaVersion) return "schema_changed";
  return null;
}

/** Whether the stored cursor is at `position` (the fence of a pass's writes: batch, pause, end). */
export function isStoredCursor(record: CompactionRecord, position: ScanPosition): boolean {
  const cursor = record.runtime.cursor;
  return (
    cursor !== null &&
    cursor.afterTaskId === position.afterTaskId &&
    cursor.afterSessionId === position.afterSessionId &&
    (cursor.afterMessageRowid === null ? null : Number(cursor.afterMessageRowid)) === (position.afterMessageRowid === null ? null : Number(position.afterMessageRowid))
  );
}

/** The cursor and running operation as stored after a commit. */
export function withProgress(record: CompactionRecord, pass: PassIdentity, position: ScanPosition, tally: Tally): CompactionRecord {
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
export async function runBatch(input: BatchInput): Promise<BatchOutcome> {
  const { store, clock, pass, groups } = input;
  return store.writeTransaction((tx): Promise<BatchOutcome> => {
    return withCompactionRecordInTx(tx, async ({ current, write }): Promise<BatchOutcome> => {
      if (current.state === "malformed") return { outcome: "gated", reason: "settings_malformed" };
      const gate = await checkPassGates(tx, current.record, pass);
      if (gate) return { outcome: "gated", reason: gate };
      if (input.from && !isStoredCursor(current.record, input.from)) return { outcome: "gated", reason: "operation_replaced" };
      // Rows first, then the tasks' gates: a foreground write to one of them now waits for this commit.
      await tx.lockRowsForRewrite?.(groups.flatMap((group) => group.rows.map((row) => row.rowid)));
      // Each task's re-check runs once per batch with its own budget
      // (eligibility_budget skips the task); the statement deadline counts
      // only the writer's own statements, so slow checks can never turn
      // every batch into a rollback.
      const pending = createTally();
      addTally(pending, input.pending);
      const dropped: DroppedTask[] = [];
      const kept: BatchGroup[] = [];
      // Where the engine reads them at once (PostgreSQL): every task's indexed probes in one statement. A read
      // slower than one task's budget is not held against every task: each is then re-checked on its own.
      const readStartedMs = clock.now();
      const shared = tx.tasksProbes && groups.length > 1 ? await tx.tasksProbes(groups.map((group) => group.taskId), { indexedOnly: true }) : null;
      const read = shared && clock.now() - readStartedMs <= ELIGIBILITY_BUDGET_MS ? { probes: shared, startedMs: readStartedMs } : undefined;
      for (const group of groups) {
        const eligibility = await recheckTaskEligibility({ store: tx, snapshot: group.snapshot, cutoffMs: pass.cutoffMs, clock, read });
        if (eligibility.eligible) {
          kept.push(group);
          continue;
        }
        dropped.push({ taskId: group.taskId, reason: eligibility.reason });
        pending.eligibleMessages -= group.eligibleMessages;
        if (group.eligibleTask) pending.eligibleTasks -= 1;
        pending.skipped[eligibility.reason] = (pending.skipped[eligibility.reason] ?? 0) + 1;
      }
      // A batch ending inside a task that fell out ends after that task: its
      // remaining rows are skipped with it, so "task done" is still a prefix.
      const position = dropped.some((task) => task.taskId === input.next.afterTaskId)
        ? { afterTaskId: input.next.afterTaskId, afterSessionId: null, afterMessageRowid: null }
        : input.next;
      const deadline = startDeadline({ clock, limitMs: input.deadlineMs });

      const batch = createTally();
      const changedIds: string[] = [];
      let rows = 0;
      let bytes = 0;
      const writes = kept.flatMap((group) => group.rows);
      // One statement for the whole batch where the engine has it (PostgreSQL), else one per row.
      const writtenAtOnce = tx.replaceMetadataBatch && writes.length > 0 ? await tx.replaceMetadataBatch(writes) : null;
      if (writtenAtOnce) deadline.check();
      for (const row of writes) {
        rows += 1;
        bytes += row.bytes;
        const written = writtenAtOnce
          ? writtenAtOnce.has(row.rowid)
          : row.observed !== null
            ? await tx.replaceMetadataIfUnchanged({ rowid: row.rowid, observed: row.observed, next: row.next, encoding: row.encoding })
            : await tx.replaceMetadataIfVersion({ rowid: row.rowid, updatedAt: row.updatedAt, bytes: row.bytes, next: row.next, encoding: row.encoding });
        if (written) {
          changedIds.push(row.id);
          batch.changedMessages += 1;
          batch.payloadBytes += row.removedBytes;
          const entry = (batch.byKind[kindOf(row.removedFields, row.type)] ??= { messages: 0, payloadBytes: 0 });
          entry.messages += 1;
          entry.payloadBytes += row.removedBytes;
        } else {
          batch.skipped.conflict = (batch.skipped.conflict ?? 0) + 1;
        }
        if (!writtenAtOnce) deadline.check();
      }
      const committed = createTally();
      addTally(committed, input.committed);
      addTally(committed, pending);
      addTally(committed, batch);
      await write(withProgress(current.record, pass, position, committed), clock.now());
      deadline.check();
      return { outcome: "committed", changedIds, committed, position, dropped, rows, bytes };
    });
  }, { deadlineMs: input.deadlineMs ?? STATEMENT_DEADLINE_MS });
}
