"use client";
import { useInfiniteQuery } from "@tanstack/react-query";
import type { AuditKind } from "@/lib/audit/api";
import { fetchAuditPage } from "./fetchers";
import { auditKeys } from "./keys";

/** The audit trail newest first, one kind or all, a page at a time. */
export function useAuditLog(kind: AuditKind | null) {
  return useInfiniteQuery({
    queryKey: auditKeys.list(kind),
    initialPageParam: null as string | null,
    queryFn: ({ pageParam, signal }) => fetchAuditPage({ kind, cursor: pageParam, signal }),
    getNextPageParam: (page) => page.nextCursor,
  });
}
