import "server-only";
import type { VacuumResult } from "@/lib/database/api";
import type { Clock } from "@/server/clock";
import type { Logger } from "@/server/log";
import type { MaintenanceGuard } from "./guard";
import { AppError } from "@/server/errors";
import type { MaintenanceStore } from "./store";

export type { VacuumResult };

type MaintenanceOptions = { store: MaintenanceStore; clock: Clock; guard: MaintenanceGuard; log: Logger };

/**
 * Explicit compaction (TPR-OBS-04): cleanup only frees pages for reuse; this
 * admin action rebuilds the file. In WAL mode VACUUM writes through the WAL,
 * so a TRUNCATE checkpoint follows to move the smaller image into the main
 * file and empty the WAL before "after" is measured. Sizes include the WAL.
 * It runs on a worker thread with its own connection (HTTP keeps being
 * served; other writers wait on the lock up to busyTimeoutMs) and, once
 * started, to completion: no request signal reaches it, so closing the HTTP
 * request cannot cancel it half way (TPR-PREP-09).
 */
export async function vacuumDatabase(options: MaintenanceOptions & { busyTimeoutMs?: number }): Promise<VacuumResult> {
  const { store, clock } = options;
  return options.guard.withExclusive({ owner: "vacuum", kind: "vacuum" }, async () => {
    const started = clock.now();
    const beforeBytes = await store.diskBytes();
    // A long write elsewhere kept the lock: retryable, like a held guard.
    if ((await store.vacuum({ busyTimeoutMs: options.busyTimeoutMs ?? 5000 })) === "busy") {
      throw new AppError("maintenance_busy", "The database is busy; try compacting again shortly");
    }
    const afterBytes = await store.diskBytes();
    const result = { beforeBytes, afterBytes, freedBytes: Math.max(0, beforeBytes - afterBytes), durationMs: clock.now() - started };
    options.log.info(result, "vacuum finished");
    return result;
  });
}

/** PRAGMA optimize under the same guard; refreshes planner statistics. */
export async function optimizeDatabase(options: MaintenanceOptions): Promise<{ durationMs: number }> {
  const { store, clock } = options;
  return options.guard.withExclusive({ owner: "optimize", kind: "optimize" }, async () => {
    const started = clock.now();
    await store.optimize();
    const durationMs = clock.now() - started;
    options.log.info({ durationMs }, "optimize finished");
    return { durationMs };
  });
}
