"use client";
import { useQuery } from "@tanstack/react-query";
import type { LogLevel } from "@/lib/logs/api";
import { fetchLogs } from "./fetchers";
import { databaseKeys } from "./keys";

/** The in-memory log ring at or above `level`, newest first. */
export function useLogs(level: LogLevel) {
  return useQuery({ queryKey: databaseKeys.logs(level), queryFn: ({ signal }) => fetchLogs(level, signal) });
}
