// The operator CLI's verbs for scheduled checkpoint maintenance, beside
// `checkpoints analyze|run`: the automatic cleanup switch and thread expiry
// (status, analyze, enable with its backup or skip choice, disable, run,
// cancel). Each calls the verb the routes call and is audited as `cli`; a
// pass this process starts runs here (one slice: a pass that meets the
// window closing or the guard held ends partial, exit 5, and the next pass
// continues the work).
import { cleanupScheduleStatusSchema, expiryStatusSchema, type ExpiryAge, type ExpiryStatus, type MaintenanceOperation } from "@/lib/checkpoints/maintenance-api";
import { AppError } from "@/server/errors";
import {
  analyzeExpiry,
  cancelExpiry,
  getCleanupScheduleStatus,
  getExpiryStatus,
  putCleanupSchedule,
  putExpiryPolicy,
  runExpiryNow,
} from "@/server/checkpoints/schedule/service";
import { EXIT, type ExitCode } from "../exit-codes";
import { formatExpiryAge } from "../parse-age";
import { showProgress } from "../progress";
import { describeBytes } from "../status-lines";
import type { CommandEnv } from "./compaction";

function operationLine(label: string, op: MaintenanceOperation | null): string {
  if (!op) return `${label}: none`;
  const skipped = Object.entries(op.skipped).map(([reason, n]) => `${reason} ${n}`).join(", ");
  const counts = `${op.threads} threads, ${op.checkpoints} checkpoints, ${op.writes} writes, payload ${describeBytes(op.bytes)}`;
  return `${label}: ${op.kind} ${op.id} ${op.state}${op.errorCode ? ` (${op.errorCode})` : ""}, ${op.trigger}, ${counts}${skipped ? `; kept: ${skipped}` : ""}${op.finishedAt ? `, finished ${op.finishedAt}` : ""}`;
}

function expiryLines(status: ExpiryStatus): string[] {
  const { policy, preparation } = status;
  const window = status.maintenanceWindow;
  return [
    `thread expiry: ${policy.enabled ? `on, threads idle longer than ${formatExpiryAge(policy.age)}` : "off"} (revision ${policy.revision})${status.recordState === "malformed" ? " — stored record malformed" : ""}`,
    `preparation: ${preparation.state}${preparation.choice ? ` (${preparation.choice})` : ""}${preparation.receipt && "name" in preparation.receipt ? ` backup ${preparation.receipt.name}` : ""}${preparation.errorCode ? ` — ${preparation.errorCode}` : ""}`,
    `armed: ${status.armed ? "yes" : "no"}; next pass: ${status.nextDueAt ?? "none"}`,
    `maintenance window: ${window ? `${window.start}-${window.end} ${window.timeZone}, ${window.open ? "open" : `closed, next start ${window.nextStartAt}`}` : "none (any time)"}`,
    operationLine("active", status.activeOperation),
    operationLine("latest analysis", status.latestAnalysis),
    operationLine("latest run", status.latestRun),
    `expired threads so far: ${status.expiredThreads}`,
  ];
}

/** Waits for this process's checkpoint queue; Ctrl-C cancels the operation at its next thread. */
async function followHere(env: CommandEnv, operationId: string, label: string): Promise<void> {
  const { rt } = env;
  const progress = showProgress({ bus: rt.bus, enabled: env.tty && !env.out.json, label, operationId: () => operationId });
  const onAbort = () => void cancelExpiry(rt, operationId).catch(() => undefined);
  env.signal.addEventListener("abort", onAbort, { once: true });
  try {
    await rt.checkpoints.schedule.idle();
  } finally {
    env.signal.removeEventListener("abort", onAbort);
    progress.stop();
  }
}

function exitFor(op: MaintenanceOperation | null): ExitCode {
  if (!op) return EXIT.failed;
  if (op.state === "succeeded") return EXIT.done;
  return op.state === "partial" || op.state === "cancelled" ? EXIT.partial : EXIT.failed;
}

export async function cleanupScheduleCommand(env: CommandEnv, options: { enabled: boolean | null }): Promise<ExitCode> {
  const { rt } = env;
  let status = await getCleanupScheduleStatus(rt);
  if (options.enabled !== null) status = await putCleanupSchedule(rt, { policy: { enabled: options.enabled }, expectedRevision: status.policy.revision });
  env.out.result(cleanupScheduleStatusSchema, status, (s) => [
    `automatic checkpoint cleanup: ${s.policy.enabled ? "on, daily" : "off"} (revision ${s.policy.revision})${s.recordState === "malformed" ? " — stored record malformed" : ""}`,
    `next run: ${s.nextDueAt ?? "none"}`,
    operationLine("active", s.activeOperation),
    operationLine("latest run", s.latestRun),
  ]);
  return EXIT.done;
}

export async function expiryStatusCommand(env: CommandEnv): Promise<ExitCode> {
  env.out.result(expiryStatusSchema, await getExpiryStatus(env.rt), expiryLines);
  return EXIT.done;
}

export async function expiryAnalyzeCommand(env: CommandEnv, options: { age: ExpiryAge | null }): Promise<ExitCode> {
  const { rt } = env;
  const age = options.age ?? (await getExpiryStatus(rt)).policy.age;
  const { operationId } = await analyzeExpiry(rt, age);
  await followHere(env, operationId, "thread expiry analysis");
  const status = await getExpiryStatus(rt);
  const analysis = status.latestAnalysis?.id === operationId ? status.latestAnalysis : null;
  env.out.result(expiryStatusSchema, status, () => [
    `thread expiry analysis for ${formatExpiryAge(age)}: ${analysis?.state ?? "no result"}`,
    analysis ? `would delete ${analysis.threads} threads (${analysis.checkpoints} checkpoints, ${analysis.writes} writes, payload ${describeBytes(analysis.bytes)}) of ${analysis.threadsScanned} scanned` : "",
    ...(analysis && Object.keys(analysis.skipped).length > 0 ? [`kept: ${Object.entries(analysis.skipped).map(([r, n]) => `${r} ${n}`).join(", ")}`] : []),
  ].filter(Boolean));
  return exitFor(analysis);
}

export async function expiryEnableCommand(env: CommandEnv, options: { age: ExpiryAge | null; preparation?: "backup" | "skip"; outsideWindow: boolean }): Promise<ExitCode> {
  const { rt } = env;
  const current = await getExpiryStatus(rt);
  const before = current.latestRun?.id ?? null;
  const status = await putExpiryPolicy(
    rt,
    { policy: { enabled: true, age: options.age ?? current.policy.age }, expectedRevision: current.policy.revision, ...(options.preparation ? { preparation: options.preparation } : {}) },
    "cli",
    { outsideWindow: options.outsideWindow ? "run" : "refuse" },
  );
  const started = status.activeOperation?.id;
  if (started) await followHere(env, started, status.activeOperation?.kind === "expiry_preparation" ? "backup" : "thread expiry");
  // The preparation's backup starts the first pass when it is ready.
  await rt.checkpoints.schedule.idle();
  const after = await getExpiryStatus(rt);
  env.out.result(expiryStatusSchema, after, expiryLines);
  if (after.preparation.state === "failed") return EXIT.failed;
  const run = after.latestRun && after.latestRun.id !== before ? after.latestRun : null;
  return run ? exitFor(run) : EXIT.done;
}

export async function expiryDisableCommand(env: CommandEnv): Promise<ExitCode> {
  const { rt } = env;
  const current = await getExpiryStatus(rt);
  const status = await putExpiryPolicy(rt, { policy: { enabled: false, age: current.policy.age }, expectedRevision: current.policy.revision }, "cli");
  env.out.result(expiryStatusSchema, status, expiryLines);
  return EXIT.done;
}

export async function expiryRunCommand(env: CommandEnv, options: { outsideWindow: boolean }): Promise<ExitCode> {
  const { rt } = env;
  const current = await getExpiryStatus(rt);
  const { operationId } = await runExpiryNow(rt, { expectedRevision: current.policy.revision, outsideWindow: options.outsideWindow });
  await followHere(env, operationId, "thread expiry");
  const status = await getExpiryStatus(rt);
  const run = status.latestRun?.id === operationId ? status.latestRun : status.activeOperation?.id === operationId ? status.activeOperation : null;
  env.out.result(expiryStatusSchema, status, expiryLines);
  return exitFor(run);
}

export async function expiryCancelCommand(env: CommandEnv, options: { operationId?: string }): Promise<ExitCode> {
  const { rt } = env;
  const current = await getExpiryStatus(rt);
  const id = options.operationId ?? current.activeOperation?.id;
  if (!id) throw new AppError("conflict", "No thread expiry operation is running or waiting.");
  env.out.result(expiryStatusSchema, await cancelExpiry(rt, id), expiryLines);
  return EXIT.done;
}
