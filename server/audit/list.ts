// Reads a page of the audit trail for GET /api/v1/system/audit.
import "server-only";
import { auditDetailSchema, auditKindSchema, type AuditEntry, type AuditPage, type AuditQuery } from "@/lib/audit/api";
import { formatUtc } from "@/lib/time/rfc3339";
import type { AuditRow, AuditStore } from "./store";

/** Emails of existing accounts by id (the auth store's), for entries about an account. */
export type SubjectEmails = (userIds: string[]) => Promise<Map<string, string>>;

function toEntry(row: AuditRow): AuditEntry | null {
  const kind = auditKindSchema.safeParse(row.kind);
  if (!kind.success) return null;
  let detail: unknown = {};
  try {
    detail = JSON.parse(row.detail);
  } catch {
    // An unreadable detail is shown as empty rather than failing the page.
  }
  const parsed = auditDetailSchema.safeParse(detail);
  return {
    id: row.seq,
    at: formatUtc(row.atMs),
    actor: row.actor,
    actorEmail: row.actorEmail,
    kind: kind.data,
    subjectEmail: null,
    result: row.result === "failed" ? "failed" : "ok",
    errorCode: row.errorCode,
    detail: parsed.success ? parsed.data : {},
    count: Math.max(1, Number(row.repeatCount) || 1),
    lastAt: row.repeatCount > 1 && row.lastAtMs !== null ? formatUtc(Number(row.lastAtMs)) : null,
  };
}

export async function listAuditEntries(store: AuditStore, query: AuditQuery, retentionDays: number, subjects?: SubjectEmails): Promise<AuditPage> {
  const rows = await store.list({ beforeSeq: query.cursor ? Number(query.cursor) : null, kind: query.kind ?? null, limit: query.limit + 1 });
  const page = rows.slice(0, query.limit);
  let entries = page.map(toEntry).filter((entry): entry is AuditEntry => entry !== null);
  const ids = [...new Set(entries.flatMap((entry) => (entry.detail.userId ? [entry.detail.userId] : [])))];
  if (subjects && ids.length > 0) {
    const emails = await subjects(ids);
    entries = entries.map((entry) => ({ ...entry, subjectEmail: (entry.detail.userId && emails.get(entry.detail.userId)) || null }));
  }
  const last = page.at(-1);
  return { entries, nextCursor: rows.length > query.limit && last ? String(last.seq) : null, retentionDays };
}
