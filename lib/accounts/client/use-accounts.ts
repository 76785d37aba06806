"use client";
import { useQuery } from "@tanstack/react-query";
import { fetchAccounts } from "./fetchers";
import { accountKeys } from "./keys";

export function useAccounts() {
  return useQuery({ queryKey: accountKeys.list(), queryFn: ({ signal }) => fetchAccounts(signal) });
}
