// The pause between cleanup batches.
import "server-only";

/**
 * The yield after a committed batch is proportional to the time the batch
 * held the writer (writer fairness: foreground writers get at least as much
 * time as the pass), at least 1 ms so timers and I/O get a turn, and at most
 * the cap (100 ms by default). A rolled-back batch still backs off the full cap.
 */
export const YIELD = { ratio: 1, minMs: 1 } as const;

export function yieldAfter(batchMs: number, capMs: number, minMs: number = YIELD.minMs): number {
  return Math.min(Math.max(capMs, minMs), Math.max(minMs, Math.ceil(batchMs * YIELD.ratio)));
}
