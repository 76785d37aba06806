// Fetchers of the Database page API (stats, vacuum, backups, restore, maintenance lock, logs).
// Each passes the abort signal on, checks the answer against its schema and
// rejects with ApiError on any non-2xx or unexpected answer.
import {
  backupReceiptSchema,
  backupsResponseSchema,
  clearedLockSchema,
  databaseBackupUrl,
  databaseStatsResponseSchema,
  deletedBackupSchema,
  restoreResultSchema,
  vacuumResultSchema,
  type BackupReceipt,
  type BackupsResponse,
  type ClearedLock,
  type DatabaseStatsResponse,
  type DeletedBackup,
  type RestoreResult,
  type VacuumResult,
} from "@/lib/database/api";
import { historyResponseSchema, type HistoryResponse } from "@/lib/database/history-api";
import { logsResponseSchema, type LogLevel, type LogsResponse } from "@/lib/logs/api";
import { fetchParsed } from "@/lib/query/fetch-json";

const DATABASE_PATH = "/api/v1/system/database";

export function fetchDatabaseStats(signal?: AbortSignal): Promise<DatabaseStatsResponse> {
  return fetchParsed(databaseStatsResponseSchema, `${DATABASE_PATH}/stats`, { signal });
}

/** The storage history of the last `days` days (oldest first), the newest sample with its tables, and the growth fit. */
export function fetchStorageHistory(days: number, signal?: AbortSignal): Promise<HistoryResponse> {
  return fetchParsed(historyResponseSchema, `${DATABASE_PATH}/history?days=${encodeURIComponent(String(days))}`, { signal });
}

export function postVacuum(signal?: AbortSignal): Promise<VacuumResult> {
  return fetchParsed(vacuumResultSchema, `${DATABASE_PATH}/vacuum`, { method: "POST", body: {}, signal });
}

export function fetchBackups(signal?: AbortSignal): Promise<BackupsResponse> {
  return fetchParsed(backupsResponseSchema, `${DATABASE_PATH}/backups`, { signal });
}

export function postBackup(signal?: AbortSignal): Promise<BackupReceipt> {
  return fetchParsed(backupReceiptSchema, `${DATABASE_PATH}/backups`, { method: "POST", body: {}, signal });
}

export function deleteBackup(name: string, signal?: AbortSignal, options: { confirm?: string } = {}): Promise<DeletedBackup> {
  // A pinned backup (the compaction preparation's receipt) needs its name typed.
  const query = options.confirm === undefined ? "" : `?confirm=${encodeURIComponent(options.confirm)}`;
  return fetchParsed(deletedBackupSchema, `${databaseBackupUrl(name)}${query}`, { method: "DELETE", signal });
}

export function postRestore(options: { name: string; confirm: string; signal?: AbortSignal }): Promise<RestoreResult> {
  const { name, confirm, signal } = options;
  return fetchParsed(restoreResultSchema, `${databaseBackupUrl(name)}/restore`, { method: "POST", body: { confirm }, signal });
}

/** Clears a maintenance lock of another host: its id as shown and the typed confirmation. */
export function postClearMaintenanceLock(options: { id: string; confirm: string; signal?: AbortSignal }): Promise<ClearedLock> {
  const { id, confirm, signal } = options;
  return fetchParsed(clearedLockSchema, `${DATABASE_PATH}/maintenance-lock/clear`, { method: "POST", body: { id, confirm }, signal });
}

export function fetchLogs(level: LogLevel, signal?: AbortSignal): Promise<LogsResponse> {
  return fetchParsed(logsResponseSchema, `/api/v1/system/logs?level=${level}`, { signal });
}
