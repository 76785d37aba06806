import type { OpenRuntime } from "@/server/runtime";
import { endActiveOperation } from "@/server/compaction/policy/operations";
import { readCompactionRecord } from "@/server/compaction/policy/record";
import { isInsideWindow, windowState } from "@/server/jobs/maintenance-window";

/**
 * How following an operation ended for this process: "window_closed" is
 * work left because the pass paused for the maintenance window.
 */
export type FollowOutcome = "ended" | "work_left" | "window_closed";

/** Code recorded when the CLI stops a pass after one slice (without --until-done). */
export const SLICE_ENDED_CODE = "cli_slice_ended";

/**
 * The continuation at `at` waits for the maintenance window to open (the
 * window closed during the pass, and no --outside-window overrode it).
 */
function waitsForWindow(rt: OpenRuntime, at: number): boolean {
  const window = rt.maintenanceWindow;
  const nowMs = rt.clock.now();
  return window !== null && !isInsideWindow(window, nowMs) && at >= windowState(window, nowMs).nextStartMs;
}

async function activeId(rt: OpenRuntime): Promise<string | null> {
  const read = await readCompactionRecord(rt.stores.compaction);
  return read.state === "malformed" ? null : (read.record.runtime.activeOperation?.id ?? null);
}

/**
 * Waits until this process's worker has nothing left to do for `operationId`.
 * A cleanup pass yields after each work budget and continues after a pause
 * (the server's rules); with `untilDone` those continuations run here, else
 * the pass is ended after its first slice, recorded as cancelled with
 * SLICE_ENDED_CODE, so nothing is left waiting for a process that exits.
 * A pass paused by the maintenance window ends the same way even with
 * `untilDone`: waiting here for the next opening could take a day.
 */
export async function followOperation(rt: OpenRuntime, options: { operationId: string; untilDone: boolean; signal?: AbortSignal }): Promise<FollowOutcome> {
  const { operationId } = options;
  for (;;) {
    await rt.compaction.idle();
    if ((await activeId(rt)) !== operationId) return "ended";
    const at = rt.compaction.nextTimerAt();
    const windowClosed = at !== null && waitsForWindow(rt, at);
    if (!options.untilDone || at === null || windowClosed || options.signal?.aborted) {
      const ended = await endActiveOperation(rt.stores.compaction, { operationId, state: "cancelled", code: SLICE_ENDED_CODE, nowMs: rt.clock.now() });
      if (ended) rt.bus.publish({ type: "operation", operationId, kind: ended.kind, state: ended.state, progress: { scannedRows: ended.scannedRows, eligibleMessages: ended.eligibleMessages, changedMessages: ended.changedMessages, payloadBytes: ended.payloadBytes, fraction: null } });
      return windowClosed ? "window_closed" : "work_left";
    }
    // The continuation timer enqueues the next slice; wait just past it.
    await new Promise<void>((resolve) => {
      const handle = rt.timers.setTimeout(resolve, Math.max(0, at - rt.clock.now()) + 20);
      options.signal?.addEventListener("abort", () => {
        rt.timers.clearTimeout(handle);
        resolve();
      }, { once: true });
    });
  }
}
