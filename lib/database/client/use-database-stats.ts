"use client";
import { useQuery } from "@tanstack/react-query";
import { fetchDatabaseStats } from "./fetchers";
import { databaseKeys } from "./keys";

export function useDatabaseStats() {
  return useQuery({ queryKey: databaseKeys.stats(), queryFn: ({ signal }) => fetchDatabaseStats(signal) });
}
