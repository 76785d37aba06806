import "server-only";
import type { VacuumResult } from "@/lib/database/api";
import fs from "node:fs";
import type { Clock } from "@/server/clock";
import type { Sqlite } from "@/server/db/client";
import { logger, type Logger } from "@/server/log";
import { maintenanceGuard, type MaintenanceGuard } from "./guard";
import { AppError } from "@/server/errors";
import { runSqliteThread, SqliteThreadError } from "./sqlite-thread";

export type { VacuumResult };

type MaintenanceOptions = { dbFile: string; clock: Clock; guard?: MaintenanceGuard; log?: Logger };

/** Bytes on disk for the database: main file plus WAL. */
function diskBytes(dbFile: string): number {
  let total = 0;
  for (const file of [dbFile, `${dbFile}-wal`]) {
    try {
      total += fs.statSync(file).size;
    } catch {
      // no WAL yet
    }
  }
  return total;
}

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
  const { dbFile, clock } = options;
  return (options.guard ?? maintenanceGuard()).withExclusive({ owner: "vacuum", kind: "vacuum" }, async () => {
    const started = clock.now();
    const beforeBytes = diskBytes(dbFile);
    try {
      await runSqliteThread({ kind: "vacuum", file: dbFile, busyTimeoutMs: options.busyTimeoutMs ?? 5000 });
    } catch (error) {
      // A long write elsewhere kept the lock: retryable, like a held guard.
      if (error instanceof SqliteThreadError && error.code.startsWith("SQLITE_BUSY")) {
        throw new AppError("maintenance_busy", "The database is busy; try compacting again shortly");
      }
      throw error;
    }
    const afterBytes = diskBytes(dbFile);
    const result = { beforeBytes, afterBytes, freedBytes: Math.max(0, beforeBytes - afterBytes), durationMs: clock.now() - started };
    (options.log ?? logger()).info(result, "vacuum finished");
    return result;
  });
}

/** PRAGMA optimize under the same guard; refreshes planner statistics. */
export async function optimizeDatabase(options: MaintenanceOptions & { sqlite: Sqlite }): Promise<{ durationMs: number }> {
  const { sqlite, clock } = options;
  return (options.guard ?? maintenanceGuard()).withExclusive({ owner: "optimize", kind: "optimize" }, () => {
    const started = clock.now();
    sqlite.pragma("optimize");
    const durationMs = clock.now() - started;
    (options.log ?? logger()).info({ durationMs }, "optimize finished");
    return { durationMs };
  });
}
