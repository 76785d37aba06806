import "server-only";
import type { Logger } from "@/server/log";
import { sweepStaleStaging } from "./backups/create";

/**
 * Start-of-process maintenance: removes backup staging directories a crash
 * left behind (their snapshot was never published). Fire-and-forget so it
 * never blocks boot; a failure is logged with its code only.
 */
export function startMaintenance(options: { dbFile: string; log: Logger }): void {
  sweepStaleStaging({ dbFile: options.dbFile })
    .then((removed) => {
      if (removed > 0) options.log.warn({ removed }, "removed stale backup staging directories");
    })
    .catch((error: unknown) => {
      options.log.error({ err: { code: (error as { code?: unknown }).code } }, "backup staging sweep failed");
    });
}
