import cliProgress from "cli-progress";
import type { EventBus } from "@/server/events/bus";

export type ProgressDisplay = { stop(): void };

/**
 * A progress bar on stderr fed by the runtime's event bus, only on a TTY and
 * never with --json: scripts and logs get the final answer alone.
 */
export function showProgress(options: { bus: EventBus; enabled: boolean; label: string; operationId?: () => string | null }): ProgressDisplay {
  if (!options.enabled) return { stop: () => undefined };
  const bar = new cliProgress.SingleBar(
    { format: `${options.label} [{bar}] {percentage}% | {detail}`, stream: process.stderr, hideCursor: true, clearOnComplete: false },
    cliProgress.Presets.shades_classic,
  );
  bar.start(100, 0, { detail: "starting" });
  const unsubscribe = options.bus.subscribe((event) => {
    if (event.type !== "operation") return;
    const wanted = options.operationId?.() ?? null;
    if (wanted !== null && event.operationId !== wanted) return;
    const { progress } = event;
    const counted = event.kind === "analysis" ? `${progress.eligibleMessages} messages eligible` : `${progress.changedMessages} messages changed`;
    const detail = `${event.state}, ${progress.scannedRows} rows scanned, ${counted}`;
    bar.update(progress.fraction === null ? bar.getProgress() * 100 : Math.round(progress.fraction * 100), { detail });
  });
  return {
    stop() {
      unsubscribe();
      bar.stop();
    },
  };
}
