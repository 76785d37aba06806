// Refused sign-ins in the audit trail, counted instead of written one by one
// (#26 item 1). A refusal costs an anonymous client nothing (a 429 answers
// before any hashing), so one row per refusal let 300 requests write 300
// rows under the admin's id within seconds. Here every refusal of one
// (code, account, client) in one 15-minute window is a single entry with a
// count: the first is written at once (the admin sees the attack start),
// the rest are added to it in one statement per flush. Rows per window are
// bounded by codes x accounts x clients, and clients by DISTINCT_PER_WINDOW:
// past it, further clients of the window share one "many clients" entry.
import "server-only";
import type { Clock, Timers } from "@/server/clock";
import type { Logger } from "@/server/log";
import type { AuditStore } from "./store";

export const REFUSAL_WINDOW_MS = 15 * 60 * 1000;
/** How often counted refusals are added to their rows. */
export const REFUSAL_FLUSH_MS = 5_000;
/** Distinct (code, account, client) entries one window may start before clients are pooled. */
export const DISTINCT_PER_WINDOW = 200;
/** The client of the pooled entry. */
export const MANY_CLIENTS = "many";

export type Refusal = {
  /** A user id, or "unknown" when the email belongs to no account. */
  actor: string;
  /** The keyed hash of the client's throttle address (hashedClientKey). */
  client: string;
  errorCode: string;
  atMs: number;
};

type Pending = { refusal: Refusal; key: string; count: number; lastAtMs: number };

export type RefusalAudit = {
  /** Resolves once a new entry's first row is written (counted refusals resolve at once). */
  record(refusal: Refusal): Promise<void>;
  /** Adds every counted refusal to its row now (stop, tests). */
  flush(): Promise<void>;
  /** Flushes and stops the timer. */
  stop(): Promise<void>;
};

export function createRefusalAudit(options: {
  /** Read at each write: a restore replaces the stores; null once the runtime stopped. */
  store: () => AuditStore | null;
  clock: Clock;
  timers: Timers;
  log: Logger;
  flushMs?: number;
  distinctPerWindow?: number;
}): RefusalAudit {
  const flushMs = options.flushMs ?? REFUSAL_FLUSH_MS;
  const distinct = options.distinctPerWindow ?? DISTINCT_PER_WINDOW;
  let window = -1;
  // Keys whose row this process already created in the current window.
  let seen = new Set<string>();
  let pending = new Map<string, Pending>();
  let timer: unknown = null;
  let stopped = false;

  const write = async (entry: Pending): Promise<void> => {
    const store = options.store();
    if (!store) return;
    const { refusal } = entry;
    try {
      await store.addToAggregate({
        atMs: refusal.atMs,
        actor: refusal.actor,
        kind: "auth.sign_in",
        result: "failed",
        errorCode: refusal.errorCode,
        detail: JSON.stringify({ client: refusal.client }),
        aggregateKey: entry.key,
        count: entry.count,
        lastAtMs: entry.lastAtMs,
      });
    } catch (error) {
      // Best effort: a failed write must not fail the sign-in answer.
      options.log.warn({ event: "audit_write_failed", err: { name: (error as Error)?.name, code: (error as { code?: unknown })?.code } }, "refused sign-ins not recorded");
    }
  };

  const flush = async (): Promise<void> => {
    if (timer !== null) options.timers.clearTimeout(timer);
    timer = null;
    const batch = [...pending.values()];
    pending = new Map();
    for (const entry of batch) await write(entry);
  };

  const schedule = () => {
    if (timer !== null || stopped) return;
    timer = options.timers.setTimeout(() => void flush(), flushMs);
    (timer as { unref?: () => void } | null)?.unref?.();
  };

  return {
    async record(refusal) {
      const current = Math.floor(refusal.atMs / REFUSAL_WINDOW_MS);
      if (current !== window) {
        // Counts of the window that ended go to their rows first.
        void flush();
        window = current;
        seen = new Set();
      }
      let key = `auth.sign_in|${refusal.errorCode}|${refusal.actor}|${refusal.client}|${window}`;
      let entry = refusal;
      if (!seen.has(key) && seen.size >= distinct) {
        entry = { ...refusal, client: MANY_CLIENTS };
        key = `auth.sign_in|${refusal.errorCode}|${refusal.actor}|${MANY_CLIENTS}|${window}`;
      }
      const pendingEntry: Pending = { refusal: entry, key, count: 1, lastAtMs: refusal.atMs };
      if (!seen.has(key)) {
        seen.add(key);
        await write(pendingEntry);
        return;
      }
      const existing = pending.get(key);
      if (existing) {
        existing.count += 1;
        existing.lastAtMs = Math.max(existing.lastAtMs, refusal.atMs);
      } else {
        pending.set(key, pendingEntry);
      }
      schedule();
    },
    flush,
    async stop() {
      stopped = true;
      await flush();
    },
  };
}
