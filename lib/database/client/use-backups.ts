"use client";
import { useQuery } from "@tanstack/react-query";
import { fetchBackups } from "./fetchers";
import { databaseKeys } from "./keys";

export function useBackups() {
  return useQuery({ queryKey: databaseKeys.backups(), queryFn: ({ signal }) => fetchBackups(signal) });
}
