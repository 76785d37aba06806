"use client";
// Browser-side reads and actions of the Database page's stats, backups and
// log viewer cards. Each card owns its query, so each loads and fails alone.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import {
  databaseBackupUrl,
  type BackupReceipt,
  type BackupsResponse,
  type DatabaseStatsResponse,
  type RestoreResult,
  type VacuumResult,
} from "@/lib/api/database-maintenance";
import type { LogLevel, LogsResponse } from "@/lib/logs/api";
import { fetchJson } from "@/lib/query/fetch-json";

export const databaseKeys = {
  stats: ["database", "stats"] as const,
  backups: ["database", "backups"] as const,
  logs: (level: LogLevel) => ["database", "logs", level] as const,
};

export function useDatabaseStats() {
  return useQuery({
    queryKey: databaseKeys.stats,
    queryFn: ({ signal }) => fetchJson<DatabaseStatsResponse>("/api/v1/system/database/stats", { signal }),
  });
}

/** VACUUM: the answer (before/after) is the result shown; stats refresh after. */
export function useVacuum() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () => fetchJson<VacuumResult>("/api/v1/system/database/vacuum", { method: "POST", body: {} }),
    onSettled: () => client.invalidateQueries({ queryKey: databaseKeys.stats }),
  });
}

export function useBackups() {
  return useQuery({
    queryKey: databaseKeys.backups,
    queryFn: ({ signal }) => fetchJson<BackupsResponse>("/api/v1/system/database/backups", { signal }),
  });
}

function useBackupAction<TVars, TResult>(action: (vars: TVars) => Promise<TResult>) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: action,
    onSettled: async () => {
      await client.invalidateQueries({ queryKey: databaseKeys.backups });
      await client.invalidateQueries({ queryKey: databaseKeys.stats });
    },
  });
}

export function useCreateBackup() {
  return useBackupAction(() => fetchJson<BackupReceipt>("/api/v1/system/database/backups", { method: "POST", body: {} }));
}

export function useDeleteBackup() {
  return useBackupAction((name: string) => fetchJson<{ deleted: string }>(databaseBackupUrl(name), { method: "DELETE" }));
}

export function useRestoreBackup() {
  return useBackupAction((vars: { name: string; confirm: string }) =>
    fetchJson<RestoreResult>(`${databaseBackupUrl(vars.name)}/restore`, { method: "POST", body: { confirm: vars.confirm } }),
  );
}

export function useLogs(level: LogLevel) {
  return useQuery({
    queryKey: databaseKeys.logs(level),
    queryFn: ({ signal }) => fetchJson<LogsResponse>(`/api/v1/system/logs?level=${level}`, { signal }),
  });
}
