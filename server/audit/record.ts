// Writes audit entries. A synchronous change runs with its entry in one
// writer transaction, so a change that rolls back leaves no "ok" entry; a
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
};

function detailOf<T>(options: AuditOptions<T>, result: T): AuditDetail | null {
  if (typeof options.detail === "function") return options.detail(result);
  return options.detail ?? {};
}

/** Appends one entry now; only allowlisted detail fields are kept. */
export function writeAuditEntry(
  store: AuditStore,
  entry: { atMs: number; actor: AuditActor; kind: AuditKind; detail: AuditDetail; errorCode?: string | null },
): void {
  const detail = auditDetailSchema.parse(entry.detail);
  store.insert({
    atMs: entry.atMs,
    actor: entry.actor,
    kind: entry.kind,
    result: entry.errorCode ? "failed" : "ok",
    errorCode: entry.errorCode ?? null,
    detail: JSON.stringify(detail),
  });
}

function recordRefusal<T>(target: AuditTarget, options: AuditOptions<T>, error: unknown): void {
  if (!isAppError(error) || !target.stores) return;
  const detail = options.failureDetail ?? (typeof options.detail === "object" ? options.detail : {});
  writeAuditEntry(target.stores.audit, { atMs: target.clock.now(), actor: options.actor, kind: options.kind, detail, errorCode: error.code });
}

/** Runs a synchronous change and appends its entry in the same writer transaction. */
export function audited<T>(target: AuditTarget & { stores: { audit: AuditStore } }, options: AuditOptions<T>, change: () => T): T {
  try {
    return target.stores.audit.writeTransaction((tx) => {
      const result = change();
      const detail = detailOf(options, result);
      if (detail) writeAuditEntry(tx, { atMs: target.clock.now(), actor: options.actor, kind: options.kind, detail });
      return result;
    });
  } catch (error) {
    recordRefusal(target, options, error);
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
    recordRefusal(target, options, error);
    throw error;
  }
  const detail = detailOf(options, result);
  if (detail && target.stores) writeAuditEntry(target.stores.audit, { atMs: target.clock.now(), actor: options.actor, kind: options.kind, detail });
  return result;
}
