// The verbs of per-task payload restore (GET|POST /api/v1/tasks/{id}/payload-restore,
// the CLI's `compaction restore`). A dry run answers its report at once; a
// restore answers its operation id and runs in the background under the
// maintenance guard (jobs.ts), putting the task on hold first unless the
// admin opted out, so the next pass does not remove the payloads again.
// What leaves here (reports, records, events, log lines, audit entries)
// holds ids, counts, times and backup names: never a payload.
import "server-only";
import type { PayloadRestoreBody, RestoreOperation, RestoreReport, RestoreSummary } from "@/lib/task-compaction/api";
import { formatUtc } from "@/lib/time/rfc3339";
import { recordRefusal, writeAuditEntry, type AuditActor } from "@/server/audit/record";
import { AppError, isAppError } from "@/server/errors";
import type { OpenRuntime } from "@/server/runtime";
import type { BackupReader } from "./backup-reader";
import { readBackupStates, type BackupState } from "./backup-states";
import { assertBackupUnchanged, checkBackup, chooseBackup, listRestoreCandidates, preparationReceipt, type RestoreCandidate, type VerifiedBackup } from "./backups";
import { openPgArchiveReader } from "./pg-archive-reader";
import { planTask, type TaskPlan } from "./plan";
import { runRestore, type RestoreTally } from "./run-restore";
import { openSqliteBackupReader } from "./sqlite-backup-reader";
import type { RestoreRecord } from "./store";

const AUDIT_IDS = 100;

async function requireTask(rt: OpenRuntime, taskId: string): Promise<void> {
  if (!(await rt.stores.restores.taskExists(taskId))) throw new AppError("not_found", "Task not found");
}

function openReader(rt: OpenRuntime, backup: VerifiedBackup): BackupReader {
  return rt.target.engine === "postgres" ? openPgArchiveReader({ file: backup.file, log: rt.log }) : openSqliteBackupReader({ file: backup.file });
}

const verify = async (rt: OpenRuntime, entry: Awaited<ReturnType<typeof chooseBackup>>) =>
  checkBackup({ entry, dbFile: rt.dbFile, store: rt.stores.maintenance, receipt: await preparationReceipt(rt.stores.compaction), cache: rt.payloadRestores.checks });

/** Counts of the messages not restored, by reason (reasons with none left out). */
const skippedOf = (tally: RestoreTally) => Object.fromEntries(Object.entries(tally.counts).filter(([reason, n]) => reason !== "restorable" && n > 0));

export function toRestoreOperation(record: RestoreRecord): RestoreOperation {
  let skipped: Record<string, number> = {};
  try {
    const parsed = JSON.parse(record.skipped) as unknown;
    if (parsed && typeof parsed === "object") skipped = parsed as Record<string, number>;
  } catch {
    // A record another tool damaged shows no skip counts rather than failing the page.
  }
  return {
    id: record.id,
    taskId: record.taskId,
    backupName: record.backupName,
    backupSha256: record.backupSha256,
    actor: record.actor,
    hold: record.hold,
    state: record.state,
    startedAt: formatUtc(Number(record.startedAtMs)),
    finishedAt: record.finishedAtMs === null ? null : formatUtc(Number(record.finishedAtMs)),
    restoredMessages: Number(record.restoredMessages),
    restoredBytes: Number(record.restoredBytes),
    skipped,
    errorCode: record.errorCode,
  };
}

/**
 * A record still `running` while no restore holds the maintenance guard (on
 * this process or another) lost its runner: shown as interrupted (the next
 * restore also marks it so).
 */
async function presentRecord(rt: OpenRuntime, record: RestoreRecord | null): Promise<RestoreOperation | null> {
  if (!record) return null;
  const operation = toRestoreOperation(record);
  if (operation.state === "running" && !rt.payloadRestores.running.has(record.id) && (await rt.guard.holder())?.kind !== "payload_restore") {
    return { ...operation, state: "failed", errorCode: "interrupted" };
  }
  return operation;
}

/**
 * The candidates that can restore the task, with what is known of each
 * (backup-states.ts: no hash on this path): a backup that failed its check,
 * or that holds none of the task's compacted ids, is left out and counted.
 */
async function restorableBackups(rt: OpenRuntime, plan: TaskPlan) {
  const candidates = await listRestoreCandidates({ dbFile: rt.dbFile, span: plan.span });
  const states = await readBackupStates({
    dbFile: rt.dbFile,
    names: candidates.map((c) => c.name),
    engine: rt.target.engine === "postgres" ? "postgres" : "sqlite",
    store: rt.stores.compaction,
    cache: rt.payloadRestores.checks,
    ids: [...plan.compacted.keys()],
  });
  const excluded = { failed: 0, withoutMessages: 0 };
  const listed: Array<{ candidate: RestoreCandidate; state: BackupState }> = [];
  for (const candidate of candidates) {
    const state = states.get(candidate.name)!;
    if (state.state === "failed") excluded.failed += 1;
    else if (state.heldMessages === 0 && plan.compacted.size > 0) excluded.withoutMessages += 1;
    else listed.push({ candidate, state });
  }
  return { listed, excluded, unusable: new Set(candidates.filter((c) => !listed.some((l) => l.candidate === c)).map((c) => c.name)) };
}

/** The default backup: the newest listed one that covers every removal, else the newest listed (a named one is taken as named). */
async function pickBackup(rt: OpenRuntime, plan: TaskPlan, name: string | undefined) {
  const exclude = name === undefined ? (await restorableBackups(rt, plan)).unusable : undefined;
  return chooseBackup({ dbFile: rt.dbFile, span: plan.span, name, exclude });
}

export async function readRestoreSummary(rt: OpenRuntime, taskId: string): Promise<RestoreSummary> {
  await requireTask(rt, taskId);
  const plan = await planTask(rt.stores.restores, taskId);
  const pinned = (await preparationReceipt(rt.stores.compaction))?.name ?? null;
  const { listed, excluded } = await restorableBackups(rt, plan);
  return {
    taskId,
    compacted: {
      messages: plan.compacted.size,
      removedBytes: plan.removedBytes,
      firstRemovedAt: plan.span ? formatUtc(plan.span.firstRemovedMs) : null,
      lastRemovedAt: plan.span ? formatUtc(plan.span.lastRemovedMs) : null,
    },
    backups: listed.map(({ candidate: c, state }) => ({
      name: c.name,
      createdAt: c.createdAt,
      sizeBytes: c.sizeBytes,
      coversAll: c.coversAll,
      preparation: c.name === pinned,
      verification: state.state,
      heldMessages: state.heldMessages,
    })),
    excluded,
    latest: await presentRecord(rt, await rt.stores.restores.latestRecord(taskId)),
  };
}

function reportOf(taskId: string, backup: VerifiedBackup, plan: TaskPlan, tally: RestoreTally, hold: boolean): RestoreReport {
  return {
    taskId,
    backup: { name: backup.name, createdAt: backup.createdAt, sizeBytes: backup.sizeBytes, sha256: backup.sha256, preparation: backup.preparation },
    counts: { ...tally.counts },
    restorableBytes: tally.bytes,
    messages: plan.listed.map((row) => {
      const status = row.compacted ? (tally.statuses.get(row.id) ?? "not_in_backup") : "not_compacted";
      return { id: row.id, status, bytes: status === "restorable" ? row.removedBytes : 0 };
    }),
    truncated: plan.truncated,
    hold,
  };
}

async function readWithReader<T>(rt: OpenRuntime, backup: VerifiedBackup, fn: (reader: BackupReader) => Promise<T>): Promise<T> {
  const reader = openReader(rt, backup);
  try {
    const result = await fn(reader);
    await assertBackupUnchanged(backup);
    return result;
  } finally {
    await reader.close();
  }
}

/** The dry run: what a restore from the chosen backup would do, changing nothing. */
export async function dryRunPayloadRestore(rt: OpenRuntime, taskId: string, body: PayloadRestoreBody): Promise<RestoreReport> {
  await requireTask(rt, taskId);
  const plan = await planTask(rt.stores.restores, taskId);
  const backup = await verify(rt, await pickBackup(rt, plan, body.backup));
  const { tally } = await readWithReader(rt, backup, (reader) => runRestore({ store: rt.stores.restores, reader, plan }));
  return reportOf(taskId, backup, plan, tally, body.hold !== false);
}

export type StartedRestore = { operationId: string; done: Promise<void> };

/**
 * Starts a restore: refused at once (nothing changed, the refusal audited)
 * when the task or backup is unknown, no backup can serve, another restore
 * runs, or the maintenance guard is held. The record (and the hold) commit
 * before the answer; the backup is checked and read in the background.
 */
export async function startPayloadRestore(rt: OpenRuntime, options: { taskId: string; body: PayloadRestoreBody; actor: AuditActor }): Promise<StartedRestore> {
  const { taskId, body, actor } = options;
  const refusal = { actor, kind: "task.payloads_restored" as const, failureDetail: { taskId, ...(body.backup ? { backupName: body.backup } : {}) } };
  const operationId = rt.ids();
  let lease: Awaited<ReturnType<OpenRuntime["guard"]["acquireExclusive"]>> | null = null;
  try {
    await requireTask(rt, taskId);
    const plan = await planTask(rt.stores.restores, taskId);
    const entry = await pickBackup(rt, plan, body.backup);
    if (rt.payloadRestores.running.size > 0) throw new AppError("operation_active", "Another per-task restore is running");
    lease = await rt.guard.acquireExclusive({ owner: `payload-restore:${operationId}`, kind: "payload_restore" });
    const nowMs = rt.clock.now();
    const hold = body.hold !== false;
    const record: RestoreRecord = {
      id: operationId,
      taskId,
      backupName: entry.name,
      backupSha256: null,
      actor,
      hold,
      state: "running",
      startedAtMs: nowMs,
      finishedAtMs: null,
      runnerId: lease.id,
      restoredMessages: 0,
      restoredBytes: 0,
      skipped: "{}",
      errorCode: null,
    };
    await rt.stores.restores.writeTransaction(async () => {
      // We hold the guard: a record still running elsewhere lost its runner.
      await rt.stores.restores.interruptRunning({ finishedAtMs: nowMs });
      await rt.stores.restores.insertRecord(record);
      // The hold commits with the record, audited as a hold the admin set (a task already held keeps its hold and records nothing).
      if (hold && (await rt.stores.holds.insertHold({ taskId, heldAt: formatUtc(nowMs), heldAtMs: nowMs, heldBy: actor, restoreId: operationId }))) {
        await writeAuditEntry(rt.stores.audit, { atMs: nowMs, actor, kind: "task.hold_set", detail: { taskId, operationId } });
      }
    });
    const held = lease;
    let stopping = false;
    const done = runJob(rt, { record, entry, shouldStop: () => stopping })
      .catch((error: unknown) => rt.log.error({ operationId, err: { name: (error as Error)?.name, code: (error as { code?: unknown })?.code } }, "per-task restore failed"))
      .finally(() => {
        held.release();
        rt.payloadRestores.running.delete(operationId);
      });
    rt.payloadRestores.running.set(operationId, { taskId, stop: () => (stopping = true), done });
    return { operationId, done };
  } catch (error) {
    lease?.release();
    await recordRefusal(rt, refusal, error);
    throw error;
  }
}

type JobOptions = { record: RestoreRecord; entry: Awaited<ReturnType<typeof chooseBackup>>; shouldStop: () => boolean };

async function runJob(rt: OpenRuntime, { record, entry, shouldStop }: JobOptions): Promise<void> {
  const { id: operationId, taskId } = record;
  const store = rt.stores.restores;
  const log = rt.log.child({ operationId, component: "payload-restore" });
  const startedMs = rt.clock.now();
  let sha256: string | null = null;
  let total = 0;
  const publish = (state: "running" | "succeeded" | "partial" | "failed", tally: RestoreTally | null, processed: number) =>
    rt.bus.publish({
      type: "operation",
      operationId,
      kind: "payload_restore",
      state,
      progress: {
        scannedRows: processed,
        eligibleMessages: total,
        changedMessages: tally?.counts.restorable ?? 0,
        payloadBytes: tally?.bytes ?? 0,
        fraction: total > 0 ? Math.min(1, processed / total) : null,
      },
    });
  const counts = (tally: RestoreTally) => ({ id: operationId, restoredMessages: tally.counts.restorable, restoredBytes: tally.bytes, skipped: JSON.stringify(skippedOf(tally)), backupSha256: sha256 });
  let tally: RestoreTally | null = null;
  try {
    publish("running", null, 0);
    const backup = await verify(rt, entry);
    sha256 = backup.sha256;
    // Under the guard now: no pass can compact more of the task meanwhile.
    const plan = await planTask(store, taskId);
    total = plan.compacted.size;
    const result = await readWithReader(rt, backup, (reader) =>
      runRestore({
        store,
        reader,
        plan,
        batch: rt.payloadRestores.batch,
        write: {
          progress: (t) => store.updateProgress(counts(t)),
          committed: ({ messageIds, tally: t, processed }) => {
            if (messageIds.length > 0) rt.bus.publish({ type: "messages_changed", operationId, messageIds });
            publish("running", t, processed);
          },
          shouldStop,
        },
      }),
    );
    tally = result.tally;
    const state = result.stopped ? "partial" : "succeeded";
    const ended = tally;
    // The record's end and its audit entry commit together.
    await store.writeTransaction(async () => {
      await store.finishRecord({ ...counts(ended), state, finishedAtMs: rt.clock.now(), errorCode: result.stopped ? "stopped" : null });
      await writeAuditEntry(rt.stores.audit, {
        atMs: rt.clock.now(),
        actor: record.actor,
        kind: "task.payloads_restored",
        detail: {
          taskId,
          operationId,
          backupName: record.backupName,
          restoredMessages: ended.counts.restorable,
          restoredBytes: ended.bytes,
          messageIds: ended.restoredIds.slice(0, AUDIT_IDS),
          skipped: skippedOf(ended),
          hold: record.hold,
        },
        errorCode: result.stopped ? "stopped" : null,
      });
    });
    publish(state, tally, total);
    log.info({ state, restored: tally.counts.restorable, bytes: tally.bytes, skipped: skippedOf(tally), durationMs: rt.clock.now() - startedMs }, "per-task restore ended");
  } catch (error) {
    const code = isAppError(error) ? error.code : "internal_error";
    // What committed is in the record (each batch wrote its counts with its rows): keep it.
    const committed = await store.readRecord(operationId).catch(() => null);
    await store
      .finishRecord({
        id: operationId,
        restoredMessages: Number(committed?.restoredMessages ?? 0),
        restoredBytes: Number(committed?.restoredBytes ?? 0),
        skipped: committed?.skipped ?? "{}",
        backupSha256: sha256,
        state: "failed",
        finishedAtMs: rt.clock.now(),
        errorCode: code,
      })
      .catch(() => undefined);
    publish("failed", tally, 0);
    await writeAuditEntry(rt.stores.audit, {
      atMs: rt.clock.now(),
      actor: record.actor,
      kind: "task.payloads_restored",
      detail: { taskId, operationId, backupName: record.backupName, hold: record.hold },
      errorCode: code,
    }).catch(() => undefined);
    log.warn({ code, errName: (error as Error)?.name }, "per-task restore failed");
  }
}

/** The record of one restore (the 202's operation), or not_found. */
export async function readRestoreOperation(rt: OpenRuntime, operationId: string): Promise<RestoreOperation> {
  const record = await rt.stores.restores.readRecord(operationId);
  const operation = await presentRecord(rt, record);
  if (!operation) throw new AppError("not_found", "No such restore");
  return operation;
}
