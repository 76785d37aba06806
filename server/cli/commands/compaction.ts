import { compactionStatusBodySchema, type CompactionStatusBody } from "@/lib/compaction/api";
import type { CompactionAge, CompactionOperation } from "@/lib/compaction/policy";
import { AppError } from "@/server/errors";
import { analyzeCompaction, cancelCompaction, getCompactionStatus, putCompactionPolicy, runCompaction } from "@/server/compaction/service";
import type { OpenRuntime } from "@/server/runtime";
import { EXIT, type ExitCode } from "../exit-codes";
import { followOperation, type FollowOutcome } from "../follow";
import type { Output } from "../output";
import { showProgress } from "../progress";
import { statusLines } from "../status-lines";

export type CommandEnv = { rt: OpenRuntime; out: Output; tty: boolean; signal: AbortSignal };

/** The headline's tail when the pass stopped with work left. */
function workLeftNote(outcome: FollowOutcome): string {
  if (outcome === "window_closed") return ", work left: the maintenance window closed (run again in it, or with --outside-window)";
  return outcome === "work_left" ? ", work left (run again or use --until-done)" : "";
}

async function printStatus(env: CommandEnv, status: CompactionStatusBody, headline?: string): Promise<void> {
  const busy = await env.rt.guard.holder();
  env.out.result(compactionStatusBodySchema, status, (value) => [...(headline ? [headline] : []), ...statusLines(value, busy ? `${busy.kind} (${busy.owner})` : null)]);
}

/** 0 done, 5 partial or cancelled, 1 failed. */
function exitForOperation(operation: CompactionOperation | null, outcome: FollowOutcome): ExitCode {
  if (outcome !== "ended") return EXIT.partial;
  if (!operation) return EXIT.failed;
  if (operation.state === "succeeded") return EXIT.done;
  if (operation.state === "partial" || operation.state === "cancelled") return EXIT.partial;
  return EXIT.failed;
}

/** Follows an accepted operation here with a progress bar; Ctrl-C cancels it at the next batch. */
async function follow(env: CommandEnv, options: { operationId: string; label: string; untilDone: boolean }): Promise<FollowOutcome> {
  const { rt } = env;
  const progress = showProgress({ bus: rt.bus, enabled: env.tty && !env.out.json, label: options.label, operationId: () => options.operationId });
  const onAbort = () => {
    // Already ended: nothing to cancel.
    rt.compaction.cancel(options.operationId).catch(() => undefined);
  };
  env.signal.addEventListener("abort", onAbort, { once: true });
  try {
    return await followOperation(rt, { operationId: options.operationId, untilDone: options.untilDone, signal: env.signal });
  } finally {
    env.signal.removeEventListener("abort", onAbort);
    progress.stop();
  }
}

export async function statusCommand(env: CommandEnv): Promise<ExitCode> {
  await printStatus(env, await getCompactionStatus(env.rt));
  return EXIT.done;
}

export async function analyzeCommand(env: CommandEnv, options: { age: CompactionAge | null }): Promise<ExitCode> {
  const age = options.age ?? (await getCompactionStatus(env.rt)).policy.age;
  const { operationId } = await analyzeCompaction(env.rt, { age });
  const outcome = await follow(env, { operationId, label: "analysis", untilDone: true });
  const status = await getCompactionStatus(env.rt);
  const analysis = status.latestAnalysis?.id === operationId ? status.latestAnalysis : null;
  await printStatus(env, status, `analysis ${operationId}: ${analysis?.state ?? "ended"}`);
  return exitForOperation(analysis, outcome);
}

/**
 * A save that starts a pass outside the maintenance window is refused (the
 * pass would wait for the window in a process about to exit) unless
 * `outsideWindow` confirms running it now.
 */
export async function enableCommand(
  env: CommandEnv,
  options: { age: CompactionAge | null; preparation: "backup" | "skip" | undefined; untilDone: boolean; outsideWindow: boolean },
): Promise<ExitCode> {
  const before = await getCompactionStatus(env.rt);
  const saved = await putCompactionPolicy(
    env.rt,
    { policy: { enabled: true, age: options.age ?? before.policy.age }, expectedRevision: before.policy.revision, preparation: options.preparation },
    "cli",
    { outsideWindow: options.outsideWindow ? "run" : "refuse" },
  );
  // The preparation (backup or skip) and the initial pass run in this
  // process's worker, exactly as the server would run them after a save.
  // A backup preparation waits while another process holds the guard;
  // Ctrl-C cancels it (recorded as preparation_cancelled).
  const preparationId = saved.preparation.operationId;
  const onAbort = () => {
    // Already finished: nothing to cancel.
    if (preparationId) env.rt.compaction.cancel(preparationId).catch(() => undefined);
  };
  env.signal.addEventListener("abort", onAbort, { once: true });
  const progress = showProgress({ bus: env.rt.bus, enabled: env.tty && !env.out.json, label: "preparation" });
  try {
    await env.rt.compaction.idle();
  } finally {
    env.signal.removeEventListener("abort", onAbort);
    progress.stop();
  }
  let status = await getCompactionStatus(env.rt);
  if (status.preparation.state === "failed") {
    await printStatus(env, status, `enabled revision ${saved.policy.revision}, but preparation failed: ${status.preparation.errorCode ?? "unknown"}`);
    return EXIT.failed;
  }
  const pass = status.activeOperation?.kind === "cleanup" ? status.activeOperation.id : null;
  if (!pass) {
    await printStatus(env, status, `enabled revision ${saved.policy.revision}`);
    return EXIT.done;
  }
  const outcome = await follow(env, { operationId: pass, label: "first pass", untilDone: options.untilDone });
  status = await getCompactionStatus(env.rt);
  const run = status.latestRun?.id === pass ? status.latestRun : null;
  await printStatus(env, status, `enabled revision ${saved.policy.revision}; first pass ${run?.state ?? "ended"}${workLeftNote(outcome)}`);
  return exitForOperation(run, outcome);
}

export async function disableCommand(env: CommandEnv): Promise<ExitCode> {
  const before = await getCompactionStatus(env.rt);
  const saved = await putCompactionPolicy(env.rt, { policy: { enabled: false, age: before.policy.age }, expectedRevision: before.policy.revision });
  await printStatus(env, saved, `disabled (revision ${saved.policy.revision})`);
  return EXIT.done;
}

/** Outside the maintenance window the run is refused unless `outsideWindow` confirms it. */
export async function runCommand(env: CommandEnv, options: { untilDone: boolean; outsideWindow: boolean }): Promise<ExitCode> {
  const before = await getCompactionStatus(env.rt);
  const { operationId } = await runCompaction(env.rt, { expectedRevision: before.policy.revision, outsideWindow: options.outsideWindow });
  const outcome = await follow(env, { operationId, label: "compaction", untilDone: options.untilDone });
  const status = await getCompactionStatus(env.rt);
  const run = status.latestRun?.id === operationId ? status.latestRun : null;
  await printStatus(env, status, `run ${operationId}: ${run?.state ?? "ended"}${workLeftNote(outcome)}`);
  return exitForOperation(run, outcome);
}

export async function cancelCommand(env: CommandEnv, options: { operationId: string | undefined }): Promise<ExitCode> {
  const operationId = options.operationId ?? (await getCompactionStatus(env.rt)).activeOperation?.id;
  if (!operationId) throw new AppError("conflict", "No operation is active.");
  const status = await cancelCompaction(env.rt, { operationId });
  await printStatus(env, status, `cancelled ${operationId}`);
  return EXIT.done;
}
