"use client";
// The signed-in member's role, from GET /api/v1/auth/me (the server enforces
// it on every mutation; the card only decides what to offer).
import { useQuery } from "@tanstack/react-query";
import type { MeResponse } from "@/lib/api/auth";
import { fetchJson } from "@/lib/query/fetch-json";
import { queryKeys } from "@/lib/query/keys";

export function fetchMe(signal?: AbortSignal): Promise<MeResponse> {
  return fetchJson<MeResponse>("/api/v1/auth/me", { signal });
}

export function useCurrentRole(): { role: "admin" | "viewer" | null; isLoading: boolean } {
  const query = useQuery({ queryKey: queryKeys.me, queryFn: ({ signal }) => fetchMe(signal), staleTime: 60_000 });
  return { role: query.data?.user.role ?? null, isLoading: query.isPending };
}
