// Keeps the audit trail bounded: entries older than AUDIT_RETENTION_DAYS
// (default 180) are deleted at startup and once a day after.
import "server-only";
import type { Clock, Timers } from "@/server/clock";
import type { Logger } from "@/server/log";
import type { AuditStore } from "./store";

export const DEFAULT_AUDIT_RETENTION_DAYS = 180;
const DAY_MS = 24 * 60 * 60 * 1000;

/** The configured retention in days; a missing or invalid value means the default. */
export function auditRetentionDays(env: Record<string, string | undefined>): number {
  const raw = env.AUDIT_RETENTION_DAYS?.trim();
  if (!raw || !/^[0-9]{1,5}$/.test(raw) || Number(raw) < 1) return DEFAULT_AUDIT_RETENTION_DAYS;
  return Number(raw);
}

export function pruneAuditTrail(options: { store: AuditStore; nowMs: number; days: number }): Promise<number> {
  return options.store.prune({ beforeMs: options.nowMs - options.days * DAY_MS });
}

/**
 * Prunes now and every 24 hours while `store()` answers (null once the
 * runtime stopped). Reads the store each time: a restore replaces it.
 * Settles when the first pruning has ended.
 */
export function schedulePruning(options: { store: () => AuditStore | null; clock: Clock; timers: Timers; log: Logger; days: number }): Promise<void> {
  const tick = async () => {
    const store = options.store();
    if (!store) return;
    try {
      const deleted = await pruneAuditTrail({ store, nowMs: options.clock.now(), days: options.days });
      if (deleted > 0) options.log.info({ deleted, days: options.days }, "audit entries pruned");
    } catch (error) {
      options.log.warn({ err: { name: (error as Error)?.name, code: (error as { code?: unknown })?.code } }, "audit pruning failed");
    }
    const handle = options.timers.setTimeout(() => void tick(), DAY_MS) as { unref?: () => void };
    handle?.unref?.();
  };
  return tick();
}
