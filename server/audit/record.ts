// Writes audit entries. A database change runs with its entry in one
// writer transaction (the change's own store calls join it), so a change that rolls back leaves no "ok" entry; a
// change refused with a typed error is recorded, with its code, after the
// rollback. Unexpected errors record nothing (they are logged by the route).
import "server-only";
import { auditDetailSchema, type AuditDetail, type AuditKind } from "@/lib/audit/api";
import type { Clock } from "@/server/clock";
import { isAppError } from "@/server/errors";
import type { AuditStore } from "./store";

/** A user id, "cli" for the command line, "system" for startup and the worker. */
export type AuditActor = string;

/** Where entries go: read lazily, because a restore reopens the stores. */
export type AuditTarget = { stores: { audit: AuditStore } | null; clock: Clock };

export type AuditOptions<T> = {
  actor: AuditActor;
  kind: AuditKind;
  /** What to record on success; null records nothing (the call changed nothing). */
  detail?: AuditDetail | ((result: T) => AuditDetail | null);
  /** What to record on a refusal (defaults to the success detail when it is a plain object). */
  failureDetail?: AuditDetail;
  /**
   * The writer transaction to run the change and its entry in (default the
   * audit store's). A domain whose check-then-write needs its own writer lock
   * (auth's last-admin rule on PostgreSQL) passes its store's transaction.
   */
  writer?: <R>(fn: () => Promise<R>) => Promise<R>;
};

function detailOf<T>(options: AuditOptions<T>, result: T): AuditDetail | null {
  if (typeof options.detail === "function") return options.detail(result);
  return options.detail ?? {};
}

/** Appends one entry now; only allowlisted detail fields are kept. */
export function writeAuditEntry(
  store: AuditStore,
  entry: { atMs: number; actor: AuditActor; kind: AuditKind; detail: AuditDetail; errorCode?: string | null },
): Promise<void> {
  const detail = auditDetailSchema.parse(entry.detail);
  return store.insert({
    atMs: entry.atMs,
    actor: entry.actor,
    kind: entry.kind,
    result: entry.errorCode ? "failed" : "ok",
    errorCode: entry.errorCode ?? null,
    detail: JSON.stringify(detail),
  });
}

/** Records a refusal (a typed error) made before the change could start, as `audited` records one made during it. */
export async function recordRefusal<T>(target: AuditTarget, options: AuditOptions<T>, error: unknown): Promise<void> {
  if (!isAppError(error) || !target.stores) return;
  const detail = options.failureDetail ?? (typeof options.detail === "object" ? options.detail : {});
  await writeAuditEntry(target.stores.audit, { atMs: target.clock.now(), actor: options.actor, kind: options.kind, detail, errorCode: error.code });
}

/** Runs a database change and appends its entry in the same writer transaction. */
export async function audited<T>(
  target: AuditTarget & { stores: { audit: AuditStore } },
  options: AuditOptions<T>,
  change: () => Promise<T> | T,
): Promise<T> {
  const audit = target.stores.audit;
  const writer = options.writer ?? (<R,>(fn: () => Promise<R>): Promise<R> => audit.writeTransaction(() => fn()));
  try {
    return await writer(async () => {
      const result = await change();
      const detail = detailOf(options, result);
      // Inside the writer's transaction (same async context): this insert joins it.
      if (detail) await writeAuditEntry(audit, { atMs: target.clock.now(), actor: options.actor, kind: options.kind, detail });
      return result;
    });
  } catch (error) {
    await recordRefusal(target, options, error);
    throw error;
  }
}

/**
 * For changes that are not one database transaction (backup files, VACUUM,
 * a restore, a queued operation): the entry is appended once the change has
 * finished or been refused.
 */
export async function auditedAsync<T>(target: AuditTarget, options: AuditOptions<T>, change: () => Promise<T> | T): Promise<T> {
  let result: T;
  try {
    result = await change();
  } catch (error) {
    await recordRefusal(target, options, error);
    throw error;
  }
  const detail = detailOf(options, result);
  if (detail && target.stores) await writeAuditEntry(target.stores.audit, { atMs: target.clock.now(), actor: options.actor, kind: options.kind, detail });
  return result;
}
