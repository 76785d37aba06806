import { checkpointStorageStatus, type CheckpointOperationKind } from "@/lib/checkpoints/api";
import { audited } from "@/server/audit/record";
import { getCheckpointStorage, startCheckpointOperation } from "@/server/checkpoints/cleanup/service";
import { EXIT, type ExitCode } from "../exit-codes";
import { describeBytes } from "../status-lines";
import { showProgress } from "../progress";
import type { CommandEnv } from "./compaction";

/**
 * Runs a checkpoint analysis or cleanup here (the same queue verb as
 * POST /checkpoints/{analyze,run}); a cleanup is audited as the command line's.
 */
export async function checkpointsCommand(env: CommandEnv, kind: CheckpointOperationKind): Promise<ExitCode> {
  const { rt } = env;
  const { operationId } =
    kind === "cleanup"
      ? await audited(rt, { actor: "cli", kind: "checkpoints.cleanup", detail: (started) => ({ operationId: started.operationId }), failureDetail: {} }, () =>
          startCheckpointOperation(rt, kind),
        )
      : await startCheckpointOperation(rt, kind);
  const progress = showProgress({ bus: rt.bus, enabled: env.tty && !env.out.json, label: `checkpoint ${kind}`, operationId: () => operationId });
  const onAbort = () => rt.checkpoints.jobs.queue.cancel(operationId);
  env.signal.addEventListener("abort", onAbort, { once: true });
  try {
    await rt.checkpoints.jobs.queue.idle();
  } finally {
    env.signal.removeEventListener("abort", onAbort);
    progress.stop();
  }
  const storage = await getCheckpointStorage(rt);
  const result = storage.lastResult?.operationId === operationId ? storage.lastResult : null;
  env.out.result(checkpointStorageStatus, storage, (s) => {
    const r = s.lastResult;
    if (!r || r.operationId !== operationId) return [`checkpoint ${kind} ${operationId}: ended without a result`];
    const freed = r.before.checkpointBytes + r.before.writesBytes - (r.after.checkpointBytes + r.after.writesBytes);
    return [
      `checkpoint ${kind} ${operationId}: ${r.state}${r.errorCode ? ` (${r.errorCode})` : ""}`,
      `threads: ${r.threadsScanned} scanned, ${r.threadsChanged} ${kind === "analysis" ? "would change" : "changed"}, ${r.threadsSkipped} skipped`,
      `checkpoints ${r.before.checkpoints} -> ${r.after.checkpoints}, writes ${r.before.writes} -> ${r.after.writes}, payload ${describeBytes(freed)} ${kind === "analysis" ? "reclaimable" : "reclaimed"}`,
    ];
  });
  if (!result) return EXIT.failed;
  return result.state === "succeeded" ? EXIT.done : result.state === "cancelled" ? EXIT.partial : EXIT.failed;
}
