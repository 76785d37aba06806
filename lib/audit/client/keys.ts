// Query keys of the audit trail, one factory so reads and invalidations agree.
import type { AuditKind } from "@/lib/audit/api";

export const auditKeys = {
  all: ["audit"] as const,
  list: (kind: AuditKind | null) => ["audit", "list", kind ?? "all"] as const,
};
