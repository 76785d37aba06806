// Delta detection and the asymmetric, fail-closed compatibility gate.
import type { CheckpointMetadata } from "@langchain/langgraph-checkpoint";
import { AppError } from "@/server/errors";
import type { ChannelMode } from "./mode";
import { MODE_MARKER_KEY } from "./stamping-saver";

/**
 * The mode a checkpoint was written in. An explicit marker wins; without one,
 * upstream's `counters_since_delta_snapshot.messages` also means delta (it can
 * vanish on snapshot checkpoints, which is why the marker exists); otherwise
 * full (pre-feature checkpoints need no migration).
 */
export function checkpointMode(metadata: CheckpointMetadata | Record<string, unknown> | undefined): ChannelMode {
  const meta = (metadata ?? {}) as Record<string, unknown>;
  const marker = meta[MODE_MARKER_KEY];
  if (marker === "delta" || marker === "full") return marker;
  const counters = meta.counters_since_delta_snapshot;
  if (counters && typeof counters === "object" && Object.hasOwn(counters, "messages")) return "delta";
  return "full";
}

/**
 * Full processes must not open delta threads: a raw read of a delta blob sees
 * no `messages` and would silently answer an empty conversation. Delta reads
 * full threads (full -> delta is the migration path).
 */
export function assertModeCompatible(options: { processMode: ChannelMode; threadMode: ChannelMode; threadId: string }): void {
  if (options.processMode === "full" && options.threadMode === "delta") {
    throw new AppError(
      "checkpoint_mode_mismatch",
      `Thread ${options.threadId} was written in delta checkpoint mode and cannot be opened by this full-mode server; ` +
        "restart with CHECKPOINT_CHANNEL_MODE=delta",
      { threadId: options.threadId },
    );
  }
}
