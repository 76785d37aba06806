"use client";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { fetchStorageHistory } from "./fetchers";
import { databaseKeys } from "./keys";

/** The storage history of the last `days` days; the previous range stays on screen while another loads. */
export function useStorageHistory(days: number) {
  return useQuery({ queryKey: databaseKeys.history(days), queryFn: ({ signal }) => fetchStorageHistory(days, signal), placeholderData: keepPreviousData });
}
