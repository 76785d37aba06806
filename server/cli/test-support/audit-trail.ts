// The audit trail of a test database as GET /api/v1/system/audit answers it:
// the same list verb and wire schema, read from the file the bin wrote.
import { auditPageSchema, type AuditKind, type AuditPage } from "@/lib/audit/api";
import { listAuditEntries } from "@/server/audit/list";
import { createSqliteAuditStore } from "@/server/audit/sqlite-store";
import type { Sqlite } from "@/server/db/client";
import { wrapSqliteDb } from "@/server/db/sqlite-db";

export async function auditPage(sqlite: Sqlite, kind?: AuditKind): Promise<AuditPage> {
  const db = wrapSqliteDb({ sqlite, file: sqlite.name }, { reader: false });
  return auditPageSchema.parse(await listAuditEntries(createSqliteAuditStore(db), { kind, limit: 200 }, 180));
}

/** Newest first, each entry as [kind, actor, result, errorCode]. */
export async function auditTrail(sqlite: Sqlite): Promise<Array<[string, string, string, string | null]>> {
  return (await auditPage(sqlite)).entries.map((e) => [e.kind, e.actor, e.result, e.errorCode]);
}
