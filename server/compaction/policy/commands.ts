// Validation of the compaction API's commands against the durable record.
// Each check runs in the writer transaction that reserves the operation, so
// two simultaneous requests cannot both pass (the second gets 409).
import "server-only";
import { AppError } from "@/server/errors";
import type { IdGenerator } from "@/server/ids";
import { formatUtc } from "@/lib/time/rfc3339";
import { fingerprintAge } from "../analysis/analysis";
import { computeCutoff } from "../eligibility/cutoff";
import { editRecord, emptyOperation, reserveOperation, stepAsideForManualJob } from "./operations";
import { recordedBetweenSlices } from "./between-slices";
import type { CompactionAge, CompactionRecord } from "./policy-schema";
import type { CompactionStore } from "../store";

export type CommandContext = { store: CompactionStore; nowMs: number; newId: IdGenerator };

/**
 * Which pass waits between slices: the accepting worker's own (`waitingCleanupId`),
 * or, accepted on an instance without the worker lease (`waitingFromRecord`),
 * the one the lease holder's worker recorded.
 */
type BetweenSlices = { waitingCleanupId?: string | null; waitingFromRecord?: boolean };

function waitingPassOf(record: CompactionRecord, options: BetweenSlices): string | null | undefined {
  return options.waitingFromRecord ? recordedBetweenSlices(record) : options.waitingCleanupId;
}

/** Accepts an analysis of a draft age; 409 while another operation is active. */
export async function acceptAnalysis(ctx: CommandContext, options: { age: CompactionAge } & BetweenSlices): Promise<{ operationId: string }> {
  const operationId = ctx.newId();
  await editRecord(ctx.store, ctx.nowMs, (record) => {
    // A pass between slices steps aside and resumes after this job.
    stepAsideForManualJob(record, waitingPassOf(record, options));
    const operation = emptyOperation({ id: operationId, kind: "analysis", state: "queued", nowMs: ctx.nowMs });
    operation.fingerprint = fingerprintAge(options.age);
    operation.cutoff = formatUtc(computeCutoff({ nowMs: ctx.nowMs, age: options.age }));
    return { next: reserveOperation(record, operation), result: undefined };
  });
  return { operationId };
}

/**
 * Accepts a manual cleanup: the policy must be enabled at the expected
 * revision and that revision approved by a finished preparation. A manual
 * run ("compact now") may take the slot from a pass waiting between slices.
 */
export async function acceptCleanup(
  ctx: CommandContext,
  options: { expectedRevision: number; priority: "manual" | "scheduled" } & BetweenSlices,
): Promise<{ operationId: string }> {
  const operationId = ctx.newId();
  await editRecord(ctx.store, ctx.nowMs, (record) => {
    const { policy, runtime } = record;
    if (policy.revision !== options.expectedRevision) {
      throw new AppError("conflict", "The policy changed since it was read; reload and try again.", { revision: policy.revision });
    }
    if (!policy.enabled || runtime.preparation.state !== "ready" || runtime.approvedRevision !== policy.revision) {
      throw new AppError("cleanup_not_approved", "Compaction is not enabled and approved for the current policy.");
    }
    if (options.priority === "manual") stepAsideForManualJob(record, waitingPassOf(record, options));
    const operation = emptyOperation({ id: operationId, kind: "cleanup", state: "queued", nowMs: ctx.nowMs });
    operation.revision = policy.revision;
    return { next: reserveOperation(record, operation), result: undefined };
  });
  return { operationId };
}

export type CancelOutcome = { kind: "analysis" | "cleanup" | "preparation"; queued: boolean; steppedAside?: boolean };

/**
 * Cancels by identity. A preparation is invalidated in the record first, so
 * a backup that completes late can no longer arm cleanup.
 */
export function acceptCancel(ctx: CommandContext, options: { operationId: string }): Promise<CancelOutcome> {
  return editRecord<CancelOutcome>(ctx.store, ctx.nowMs, (record) => {
    const { runtime } = record;
    // Durable beside the relayed notification (several instances): the worker
    // lease holder finds it here even when the notification was lost.
    const alreadyRequested = runtime.cancelRequested === options.operationId;
    runtime.cancelRequested = options.operationId;
    const prep = runtime.preparation;
    if (prep.operationId === options.operationId && (prep.state === "pending" || prep.state === "running")) {
      runtime.preparation = { ...prep, state: "failed", errorCode: "preparation_cancelled" };
      return { next: record, result: { kind: "preparation" as const, queued: prep.state === "pending" } };
    }
    const waiting = runtime.waitingCleanup;
    if (waiting && waiting.id === options.operationId) {
      // A pass that stepped aside for a manual job ends where it waits, with its counts.
      const cancelled = { ...waiting, state: "cancelled" as const, finishedAt: formatUtc(ctx.nowMs), errorCode: "cancelled" };
      if (cancelled.progress) cancelled.progress = { ...cancelled.progress, totalTasks: null };
      runtime.latestRun = cancelled;
      runtime.waitingCleanup = null;
      runtime.waitingCursor = null;
      runtime.waitingSchemaVersion = null;
      return { next: record, result: { kind: "cleanup" as const, queued: false, steppedAside: true } };
    }
    const active = runtime.activeOperation;
    if (!active || active.id !== options.operationId) {
      throw new AppError("conflict", "That operation is not active.");
    }
    if (active.kind === "preparation") throw new AppError("conflict", "That operation is not active.");
    if (active.state === "queued") {
      const cancelled = { ...active, state: "cancelled" as const, finishedAt: formatUtc(ctx.nowMs) };
      if (active.kind === "analysis") runtime.latestAnalysis = cancelled;
      else runtime.latestRun = cancelled;
      runtime.activeOperation = null;
      runtime.cursor = null;
      return { next: record, result: { kind: active.kind, queued: true } };
    }
    // A running operation stops where it runs: only the request is recorded.
    return { next: alreadyRequested ? null : record, result: { kind: active.kind, queued: false } };
  });
}
