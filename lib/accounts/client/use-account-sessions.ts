"use client";
import { useQuery } from "@tanstack/react-query";
import { fetchAccountSessions } from "./fetchers";
import { accountKeys } from "./keys";

/** One account's live sessions, read only while its panel is open. */
export function useAccountSessions(userId: string, enabled: boolean) {
  return useQuery({ queryKey: accountKeys.sessions(userId), queryFn: ({ signal }) => fetchAccountSessions(userId, signal), enabled });
}
