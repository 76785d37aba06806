// Start and end of a cleanup pass in the compaction record, each in its own
// writer transaction. Starting either resumes the stored cursor (ordinary
// restart) or captures fresh upper bounds and one cutoff; a stored cursor
// from another schema version ends that pass partial and the caller starts
// a fresh one later.
import "server-only";
import { formatUtc, parseRfc3339 } from "@/lib/time/rfc3339";
import type { OperationState, CompactionOperation } from "@/lib/compaction/policy";
import { computeCutoff } from "../eligibility/cutoff";
import { isStoredCursor, withProgress, type GateFailure, type PassIdentity } from "./batch";
import { withCompactionRecordInTx } from "../policy/record";
import type { CompactionStore } from "../store";
import { START_POSITION, type ScanPosition } from "./scan";
import { createTally, tallyFromOperation, tallyOperation, type Tally } from "./tally";

export type PassStart =
  | { kind: "ready"; pass: PassIdentity; position: ScanPosition; committed: Tally; resumed: boolean }
  | { kind: "blocked"; reason: GateFailure | "operation_active" }
  | { kind: "ended"; reason: "schema_changed"; operation: CompactionOperation };

/** Opens (or resumes) the pass of `operationId`. */
export async function startPass(store: CompactionStore, options: { operationId: string; nowMs: number }): Promise<PassStart> {
  const { operationId, nowMs } = options;
  return store.writeTransaction((tx) =>
    withCompactionRecordInTx(tx, async ({ current, write }): Promise<PassStart> => {
      if (current.state === "malformed") return { kind: "blocked", reason: "settings_malformed" };
      const record = current.record;
      const { policy, runtime } = record;
      if (!policy.enabled) return { kind: "blocked", reason: "disabled" };
      if (runtime.preparation.state !== "ready" || runtime.approvedRevision !== policy.revision) {
        return { kind: "blocked", reason: "not_approved" };
      }
      const active = runtime.activeOperation;
      if (active && active.id !== operationId) return { kind: "blocked", reason: "operation_active" };
      const schemaVersion = await tx.readSchemaVersion();
      const cursor = runtime.cursor;
      if (active && cursor && cursor.operationId === operationId) {
        if (runtime.schemaVersion !== schemaVersion) {
          // Compaction or a migration moved rows under the cursor: end the
          // pass partial with what it committed; the next pass starts fresh.
          const operation: CompactionOperation = { ...active, state: "partial", finishedAt: formatUtc(nowMs), errorCode: "schema_changed" };
          if (operation.progress) operation.progress = { ...operation.progress, totalTasks: null };
          const next = structuredClone(record);
          Object.assign(next.runtime, { cursor: null, schemaVersion: null, activeOperation: null, latestRun: operation });
          await write(next, nowMs);
          return { kind: "ended", reason: "schema_changed", operation };
        }
        const pass: PassIdentity = {
          operationId,
          revision: active.revision ?? policy.revision,
          cutoffMs: parseRfc3339(cursor.cutoff) as number,
          startedMs: parseRfc3339(active.startedAt) ?? nowMs,
          schemaVersion,
          upperTaskId: cursor.upperTaskId,
          upperMessageRowid: cursor.upperMessageRowid,
        };
        const position = { afterTaskId: cursor.afterTaskId, afterSessionId: cursor.afterSessionId, afterMessageRowid: cursor.afterMessageRowid };
        return { kind: "ready", pass, position, committed: tallyFromOperation(active), resumed: true };
      }
      const bounds = await tx.captureBounds();
      const pass: PassIdentity = {
        operationId,
        revision: policy.revision,
        // One UTC cutoff for the whole pass, continuations included.
        cutoffMs: computeCutoff({ nowMs, age: policy.age }),
        startedMs: nowMs,
        schemaVersion,
        upperTaskId: bounds.upperTaskId,
        upperMessageRowid: bounds.upperMessageRowid,
      };
      const committed = createTally();
      await write(withProgress(record, pass, START_POSITION, committed), nowMs);
      return { kind: "ready", pass, position: { ...START_POSITION }, committed, resumed: false };
    }),
  );
}

/**
 * Saves the cursor and counts of a pass that pauses for a continuation.
 * `from`: the cursor this pass last committed; when the stored one moved
 * since, another worker runs the operation now and nothing is written.
 */
export async function savePassProgress(
  store: CompactionStore,
  options: { pass: PassIdentity; position: ScanPosition; tally: Tally; nowMs: number; from?: ScanPosition },
): Promise<void> {
  await store.writeTransaction((tx) =>
    withCompactionRecordInTx(tx, async ({ current, write }) => {
      if (current.state === "malformed") return;
      if (current.record.runtime.activeOperation?.id !== options.pass.operationId) return;
      if (options.from && !isStoredCursor(current.record, options.from)) return;
      await write(withProgress(current.record, options.pass, options.position, options.tally), options.nowMs);
    }),
  );
}

/** Ends a pass: stores it as the latest run, clears the cursor and the active operation (when still ours; `from` as for savePassProgress). */
export async function finishPass(
  store: CompactionStore,
  options: { pass: PassIdentity; tally: Tally; state: OperationState; errorCode: string | null; nowMs: number; from?: ScanPosition },
): Promise<CompactionOperation> {
  const { pass, tally, state, nowMs } = options;
  const operation = tallyOperation({
    tally,
    id: pass.operationId,
    kind: "cleanup",
    state,
    startedMs: pass.startedMs,
    finishedMs: nowMs,
    cutoffMs: pass.cutoffMs,
    revision: pass.revision,
  });
  operation.errorCode = options.errorCode;
  await store.writeTransaction((tx) =>
    withCompactionRecordInTx(tx, async ({ current, write }) => {
      if (current.state === "malformed") return;
      const active = current.record.runtime.activeOperation;
      // Another operation took over (cancel then a new run): leave its state alone.
      if (active && active.id !== pass.operationId) return;
      // Another worker took this operation over since this pass last committed: its end is that worker's to write.
      if (active && options.from && !isStoredCursor(current.record, options.from)) return;
      const next = structuredClone(current.record);
      next.runtime.latestRun = operation;
      Object.assign(next.runtime, { activeOperation: null, cursor: null, schemaVersion: null });
      if (options.errorCode && state !== "succeeded") next.runtime.lastErrorCode = options.errorCode;
      await write(next, nowMs);
    }),
  );
  return operation;
}
