import "server-only";
// login_throttle keeps one row per address, network and account that failed
// recently, and per known address: rows an attacker creates by rotating
// addresses. They are deleted once their windows and locks have ended, at
// startup and every PRUNE_EVERY_MS, so the table stays the size of recent
// activity instead of growing with every address ever seen.
import type { Clock, Timers } from "@/server/clock";
import type { Logger } from "@/server/log";
import type { AuthStore } from "./store";
import { PRUNE_EVERY_MS, pruneThrottle } from "./throttle";

/** Prunes now and every PRUNE_EVERY_MS while `store()` answers (null once the runtime stopped; a restore replaces it). */
export async function scheduleThrottlePruning(options: { store: () => AuthStore | null; clock: Clock; timers: Timers; log: Logger }): Promise<void> {
  const tick = async () => {
    const store = options.store();
    if (!store) return;
    try {
      const deleted = await pruneThrottle(store, { nowMs: options.clock.now() });
      if (deleted > 0) options.log.info({ event: "login_throttle_pruned", deleted }, "stale sign-in throttle rows deleted");
    } catch (error) {
      options.log.warn({ err: { name: (error as Error)?.name, code: (error as { code?: unknown })?.code } }, "sign-in throttle pruning failed");
    }
    const handle = options.timers.setTimeout(tick, PRUNE_EVERY_MS) as { unref?: () => void };
    handle?.unref?.();
  };
  await tick();
}
