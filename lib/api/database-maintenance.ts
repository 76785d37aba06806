// Shapes of the Database page API (/api/v1/system/database/{stats,vacuum,backups}).
// Shared by the server verbs and the browser fetchers.
import { z } from "zod";

export type TableStats = {
  name: string;
  rows: number;
  tableBytes: number;
  indexBytes: number;
  totalBytes: number;
  /** How tableBytes was obtained: walking the b-tree, or as the remainder of used pages. */
  bytesMethod: "dbstat" | "remainder";
};

export type DatabaseStats = {
  fileBytes: number;
  walBytes: number;
  pageSize: number;
  pageCount: number;
  freePages: number;
  freeBytes: number;
  /** Null when the SQLite build has no dbstat virtual table. */
  tables: TableStats[] | null;
};

/** GET stats. maintenanceBusy names the operation holding the maintenance guard. */
export type DatabaseStatsResponse =
  | ({ capability: "supported"; maintenanceBusy: string | null } & DatabaseStats)
  | { capability: "unsupported" };

export type VacuumResult = { beforeBytes: number; afterBytes: number; freedBytes: number; durationMs: number };

export type BackupReceipt = { name: string; sizeBytes: number; completedAt: string; sha256: string };

export type BackupEntry = { name: string; sizeBytes: number; createdAt: string };

/** GET backups: newest first; `keep` is the retention rule (newest N kept). */
export type BackupsResponse = { capability: "supported" | "unsupported"; backups: BackupEntry[]; keep: number };

export type RestoreResult = { restored: string; restartRequired: true };

/** POST backups/{name}/restore: the typed confirmation must equal the backup name. */
export const restoreBodySchema = z.strictObject({ confirm: z.string().max(200) });
export type RestoreBody = z.infer<typeof restoreBodySchema>;

/** POST vacuum and POST backups take an empty JSON object (or no body). */
export const emptyBodySchema = z.strictObject({});

export const BACKUP_NAME_PATTERN = /^workspace-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}Z-[0-9a-f]{8}\.db$/;

export function databaseBackupUrl(name: string): string {
  return `/api/v1/system/database/backups/${encodeURIComponent(name)}`;
}
