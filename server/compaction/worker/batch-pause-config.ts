import "server-only";
import type { Logger } from "@/server/log";

/**
 * COMPACTION_BATCH_PAUSE_MS: the shortest pause after each committed cleanup
 * batch (0-60000; default: the pass's own, 1 ms). Raising it slows a pass in
 * favour of foreground writers; a value out of range is logged and ignored.
 */
export function batchPauseFromEnv(env: Readonly<Record<string, string | undefined>>, log: Pick<Logger, "warn">): number | undefined {
  const raw = env.COMPACTION_BATCH_PAUSE_MS;
  if (raw === undefined || raw === "") return undefined;
  const ms = /^\d{1,5}$/.test(raw) ? Number(raw) : Number.NaN;
  if (Number.isInteger(ms) && ms <= 60_000) return ms;
  log.warn({ setting: "COMPACTION_BATCH_PAUSE_MS" }, "ignored: not a whole number of milliseconds from 0 to 60000");
  return undefined;
}
