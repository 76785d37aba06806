// The verbs the scheduled-maintenance routes and the operator CLI call:
// status, policy saves (audited, with the change and its audit entry in one
// writer transaction), analysis, run now, cancel. The scheduler they talk to
// is the runtime's.
import "server-only";
import type {
  CleanupScheduleStatus,
  ExpiryAge,
  ExpiryStatus,
  MaintenanceAccepted,
  PutCleanupScheduleBody,
  PutExpiryBody,
} from "@/lib/checkpoints/maintenance-api";
import { audited, type AuditActor } from "@/server/audit/record";
import { describeWindow } from "@/server/compaction/window-status";
import { formatUtc, parseRfc3339 } from "@/lib/time/rfc3339";
import { deferToWindow } from "@/server/jobs/maintenance-window";
import { scheduledStartAt } from "@/server/jobs/schedule";
import { refuseOutsideWindow } from "@/server/jobs/window-gate";
import type { OpenRuntime } from "@/server/runtime";
import { saveCleanupPolicy } from "./cleanup-policy";
import { expiryArmed, saveExpiryPolicy } from "./expiry-policy";
import { emptyExpiryCounts } from "./operation";
import { defaultCleanupRecord, defaultExpiryRecord, readRecord } from "./records";

/**
 * When a job starts next: the armed timer when this process runs the
 * schedule. Otherwise (the schedule runs in the server or in the instance
 * holding the lease, which re-reads the records every minute; the operator
 * CLI never arms) when that scheduler will start it: the stored due time,
 * or a minute from now for a policy just enabled, deferred to the window.
 */
function expectedStart(rt: OpenRuntime, armedMs: number | null, storedDueAt: string | null): string {
  if (armedMs !== null) return formatUtc(armedMs);
  const nowMs = rt.clock.now();
  return formatUtc(deferToWindow(rt.maintenanceWindow, scheduledStartAt({ nextDueAtMs: parseRfc3339(storedDueAt), readyAtMs: nowMs, nowMs })));
}

export async function getCleanupScheduleStatus(rt: OpenRuntime): Promise<CleanupScheduleStatus> {
  const read = await readRecord(rt.stores.schedule, "checkpoint_cleanup");
  const record = read.state === "malformed" ? defaultCleanupRecord() : read.record;
  if (read.state === "malformed") record.policy.revision = read.storedRevision;
  const timers = rt.checkpoints.schedule.nextTimers();
  const { runtime } = record;
  return {
    capability: "supported",
    recordState: read.state,
    policy: record.policy,
    nextDueAt: record.policy.enabled ? expectedStart(rt, timers.cleanup, runtime.nextDueAt) : null,
    activeOperation: runtime.activeOperation,
    latestRun: runtime.latestRun,
    lastErrorCode: runtime.lastErrorCode,
    maintenanceWindow: describeWindow(rt.maintenanceWindow, rt.clock.now()),
  };
}

export async function getExpiryStatus(rt: OpenRuntime): Promise<ExpiryStatus> {
  const store = rt.stores.schedule;
  const read = await readRecord(store, "thread_expiry");
  const record = read.state === "malformed" ? defaultExpiryRecord() : read.record;
  if (read.state === "malformed") record.policy.revision = read.storedRevision;
  const { runtime } = record;
  const prep = runtime.preparation;
  const armed = read.state !== "malformed" && expiryArmed(record);
  const timers = rt.checkpoints.schedule.nextTimers();
  // A preparation in flight is the active operation too (its backup progress).
  const preparing = prep.operationId && (prep.state === "pending" || prep.state === "running");
  return {
    capability: "supported",
    recordState: read.state,
    policy: record.policy,
    preparation: { state: prep.state, choice: prep.choice, receipt: prep.receipt, errorCode: prep.errorCode, operationId: prep.operationId, backupBytes: prep.backupBytes ?? null },
    armed,
    latestAnalysis: runtime.latestAnalysis,
    latestRun: runtime.latestRun,
    activeOperation:
      runtime.activeOperation ??
      (preparing
        ? {
            id: prep.operationId!,
            kind: "expiry_preparation",
            trigger: "manual",
            state: prep.state === "running" ? "running" : "queued",
            startedAt: prep.startedAt ?? null,
            finishedAt: null,
            cutoff: null,
            age: null,
            revision: prep.revision,
            ...emptyExpiryCounts(),
            errorCode: null,
            ...(prep.backupBytes ? { backupBytes: prep.backupBytes } : {}),
          }
        : activeAnalysis(rt)),
    nextDueAt: armed ? expectedStart(rt, timers.expiry, runtime.nextDueAt) : null,
    lastErrorCode: runtime.lastErrorCode,
    maintenanceWindow: describeWindow(rt.maintenanceWindow, rt.clock.now()),
    expiredThreads: await store.countTombstones(),
  };
}

/** An expiry analysis running on this instance's queue (analyses are not kept in the record while they run). */
function activeAnalysis(rt: OpenRuntime): ExpiryStatus["activeOperation"] {
  for (const op of rt.checkpoints.jobs.active.values()) {
    if (op.kind !== "expiry_analysis") continue;
    return {
      id: op.operationId,
      kind: "expiry_analysis",
      trigger: "manual",
      state: op.state,
      startedAt: null,
      finishedAt: null,
      cutoff: null,
      age: null,
      revision: null,
      ...emptyExpiryCounts(),
      errorCode: null,
    };
  }
  return null;
}

export async function putCleanupSchedule(rt: OpenRuntime, body: PutCleanupScheduleBody, actor: AuditActor = "cli"): Promise<CleanupScheduleStatus> {
  let before: { enabled: boolean; revision: number } | null = null;
  const saved = await audited(
    rt,
    {
      actor,
      kind: "checkpoints.schedule_changed",
      detail: (result: Awaited<ReturnType<typeof saveCleanupPolicy>>) => ({ before: result.before, after: result.record.policy, revision: result.record.policy.revision }),
      failureDetail: { after: { enabled: body.policy.enabled, revision: body.expectedRevision } },
    },
    async () => {
      const result = await saveCleanupPolicy(rt.stores.schedule, { enabled: body.policy.enabled, expectedRevision: body.expectedRevision, nowMs: rt.clock.now() });
      before = result.before;
      return result;
    },
  );
  void before;
  await rt.checkpoints.schedule.cleanupSaved(saved.stopOperation);
  return getCleanupScheduleStatus(rt);
}

/**
 * What a save that starts a pass does while the maintenance window is
 * closed: "wait" (the API) lets the pass wait for the window, "refuse" (the
 * CLI without --outside-window) rolls the save back with
 * outside_maintenance_window, "run" runs it now (confirmed).
 */
export type SaveOutsideWindow = "wait" | "refuse" | "run";

export async function putExpiryPolicy(rt: OpenRuntime, body: PutExpiryBody, actor: AuditActor = "cli", options: { outsideWindow?: SaveOutsideWindow } = {}): Promise<ExpiryStatus> {
  const outsideWindow = options.outsideWindow ?? (body.outsideWindow ? "run" : "wait");
  const saved = await audited(
    rt,
    {
      actor,
      kind: "threads.expiry_changed",
      detail: (result: Awaited<ReturnType<typeof saveExpiryPolicy>>) => ({
        before: result.before,
        after: result.record.policy,
        revision: result.record.policy.revision,
        ...(body.preparation && (result.effects.startPreparation || result.effects.startPass) ? { choice: body.preparation } : {}),
      }),
      failureDetail: { after: { ...body.policy, revision: body.expectedRevision }, ...(body.preparation ? { choice: body.preparation } : {}) },
    },
    async () => {
      const result = await saveExpiryPolicy(rt.stores.schedule, { draft: body.policy, expectedRevision: body.expectedRevision, preparation: body.preparation, nowMs: rt.clock.now(), newId: rt.ids });
      const startsPass = result.effects.startPass || result.effects.startPreparation !== null;
      // Inside the transaction: a refusal leaves the policy as it was.
      if (startsPass && outsideWindow === "refuse") refuseOutsideWindow({ window: rt.maintenanceWindow, nowMs: rt.clock.now(), confirmed: false });
      return result;
    },
  );
  await rt.checkpoints.schedule.expirySaved(saved.effects, { outsideWindow: outsideWindow === "run" });
  return getExpiryStatus(rt);
}

export function analyzeExpiry(rt: OpenRuntime, age: ExpiryAge): Promise<MaintenanceAccepted> {
  return rt.checkpoints.schedule.requestExpiryAnalysis(age);
}

export async function runExpiryNow(rt: OpenRuntime, body: { expectedRevision: number; outsideWindow?: boolean }, actor: AuditActor = "cli"): Promise<MaintenanceAccepted> {
  const scheduler = rt.checkpoints.schedule;
  const operation = await audited(rt, { actor, kind: "threads.expiry_run", detail: ({ id }) => ({ operationId: id }), failureDetail: {} }, () => scheduler.acceptExpiryRun(body));
  // Queued once the slot and its audit entry committed: the job reads what they wrote.
  await scheduler.launchExpiry(operation, { outsideWindow: body.outsideWindow === true });
  return { operationId: operation.id, kind: "thread_expiry" };
}

export async function cancelExpiry(rt: OpenRuntime, operationId: string, actor: AuditActor = "cli"): Promise<ExpiryStatus> {
  await audited(rt, { actor, kind: "threads.expiry_cancelled", detail: { operationId } }, () => rt.checkpoints.schedule.cancelExpiry(operationId));
  return getExpiryStatus(rt);
}
