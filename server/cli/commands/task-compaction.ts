// `compaction hold` and `compaction restore`: the verbs the task routes call
// (GET|PUT /api/v1/tasks/{id}/hold, POST .../payload-restore), audited as the
// command line's.
import { restoreOperationSchema, restoreReportSchema, taskHoldSchema, type RestoreOperation, type RestoreReport, type TaskHold } from "@/lib/task-compaction/api";
import { putTaskHold, readTaskHold } from "@/server/compaction/hold/hold";
import { dryRunPayloadRestore, readRestoreOperation, startPayloadRestore } from "@/server/compaction/restore/service";
import { EXIT, type ExitCode } from "../exit-codes";
import { showProgress } from "../progress";
import { describeBytes } from "../status-lines";
import type { CommandEnv } from "./compaction";

function holdLine(hold: TaskHold): string {
  if (!hold.held) return `task ${hold.taskId}: not held (compaction may remove its tool payloads)`;
  const by = hold.heldBy === "cli" ? "the command line" : (hold.heldByEmail ?? hold.heldBy);
  const source = hold.restoreId ? `, set by restore ${hold.restoreId}` : "";
  return `task ${hold.taskId}: held since ${hold.heldAt} by ${by}${source} (compaction never touches it)`;
}

/** Without --on/--off: prints the hold. With one: sets or releases it. */
export async function holdCommand(env: CommandEnv, options: { taskId: string; held: boolean | null }): Promise<ExitCode> {
  const { rt } = env;
  const hold = options.held === null ? await readTaskHold(rt, options.taskId) : await putTaskHold(rt, { taskId: options.taskId, held: options.held, actor: "cli" });
  env.out.result(taskHoldSchema, hold, (h) => [holdLine(h)]);
  return EXIT.done;
}

const notRestored = (counts: RestoreReport["counts"]) =>
  (["not_in_backup", "changed_since_compaction", "not_compacted"] as const).filter((reason) => counts[reason] > 0).map((reason) => `${counts[reason]} ${reason}`);

function reportLines(report: RestoreReport): string[] {
  const { backup, counts } = report;
  const from = `${backup.name} (taken ${backup.createdAt}${backup.preparation ? ", the compaction preparation's backup" : ""})`;
  const rest = notRestored(counts);
  return [
    `task ${report.taskId}: ${counts.restorable} messages restorable from ${from}, payload ${describeBytes(report.restorableBytes)}`,
    ...(rest.length > 0 ? [`not restorable: ${rest.join(", ")}`] : []),
    report.hold ? "a restore would put the task on hold (compaction would not remove them again)" : "a restore would leave the task off hold (--no-hold)",
    "dry run: nothing was changed",
  ];
}

function operationLines(operation: RestoreOperation): string[] {
  const rest = Object.entries(operation.skipped).map(([reason, n]) => `${n} ${reason}`);
  return [
    `restore ${operation.id} of task ${operation.taskId} from ${operation.backupName}: ${operation.state}${operation.errorCode ? ` (${operation.errorCode})` : ""}`,
    `${operation.restoredMessages} messages restored, payload ${describeBytes(operation.restoredBytes)}${rest.length > 0 ? `; not restored: ${rest.join(", ")}` : ""}`,
    operation.hold ? "the task is on hold: compaction will not remove them again" : "the task was left off hold: the next pass may remove them again",
  ];
}

export type RestoreCommandOptions = { taskId: string; backup?: string; dryRun: boolean; hold: boolean };

/**
 * --dry-run prints the report (0). Otherwise the restore runs in this
 * process under the maintenance guard and is followed to its end: 0
 * succeeded, 5 stopped (SIGINT/SIGTERM stops it at its next batch; what
 * committed stays), 1 failed.
 */
export async function restoreCommand(env: CommandEnv, options: RestoreCommandOptions): Promise<ExitCode> {
  const { rt } = env;
  const body = { ...(options.backup ? { backup: options.backup } : {}), hold: options.hold };
  if (options.dryRun) {
    env.out.result(restoreReportSchema, await dryRunPayloadRestore(rt, options.taskId, { ...body, dryRun: true }), reportLines);
    return EXIT.done;
  }
  let operationId: string | null = null;
  const progress = showProgress({ bus: rt.bus, enabled: env.tty && !env.out.json, label: "restore", operationId: () => operationId });
  try {
    const started = await startPayloadRestore(rt, { taskId: options.taskId, body, actor: "cli" });
    operationId = started.operationId;
    env.out.note(`restore ${operationId} started`);
    const stop = () => rt.payloadRestores.running.get(started.operationId)?.stop();
    env.signal.addEventListener("abort", stop, { once: true });
    try {
      await started.done;
    } finally {
      env.signal.removeEventListener("abort", stop);
    }
  } finally {
    progress.stop();
  }
  const operation = await readRestoreOperation(rt, operationId);
  env.out.result(restoreOperationSchema, operation, operationLines);
  return operation.state === "succeeded" ? EXIT.done : operation.state === "partial" ? EXIT.partial : EXIT.failed;
}
