// Fetchers of the audit trail: abort signal passed on, answers checked
// against the wire schema, ApiError on any non-2xx.
import { auditPageSchema, type AuditKind, type AuditPage } from "@/lib/audit/api";
import { fetchParsed } from "@/lib/query/fetch-json";

export const AUDIT_PAGE_SIZE = 20;

export function fetchAuditPage(options: { kind: AuditKind | null; cursor: string | null; signal?: AbortSignal }): Promise<AuditPage> {
  const query = new URLSearchParams({ limit: String(AUDIT_PAGE_SIZE) });
  if (options.kind) query.set("kind", options.kind);
  if (options.cursor) query.set("cursor", options.cursor);
  return fetchParsed(auditPageSchema, `/api/v1/system/audit?${query}`, { signal: options.signal });
}
