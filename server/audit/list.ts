// Reads a page of the audit trail for GET /api/v1/system/audit.
import "server-only";
import { auditDetailSchema, auditKindSchema, type AuditEntry, type AuditPage, type AuditQuery } from "@/lib/audit/api";
import { formatUtc } from "@/lib/time/rfc3339";
import type { AuditRow, AuditStore } from "./store";

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
    result: row.result === "failed" ? "failed" : "ok",
    errorCode: row.errorCode,
    detail: parsed.success ? parsed.data : {},
  };
}

export function listAuditEntries(store: AuditStore, query: AuditQuery, retentionDays: number): AuditPage {
  const rows = store.list({ beforeSeq: query.cursor ? Number(query.cursor) : null, kind: query.kind ?? null, limit: query.limit + 1 });
  const page = rows.slice(0, query.limit);
  const entries = page.map(toEntry).filter((entry): entry is AuditEntry => entry !== null);
  const last = page.at(-1);
  return { entries, nextCursor: rows.length > query.limit && last ? String(last.seq) : null, retentionDays };
}
