// The storage history's data access: one small row per sample. Every verb
// returns a Promise; the sizes themselves are read elsewhere (the
// maintenance store, off the writer), so the only write is the sample row.
import type { StorageMethod, StorageTrigger } from "@/lib/database/history-api";

export type SampleInsert = {
  atMs: number;
  /** One sample per key: `daily:YYYY-MM-DD` (UTC) or `<trigger>:<operation id>`. */
  sampleKey: string;
  trigger: StorageTrigger;
  operationId: string | null;
  method: StorageMethod;
  totalBytes: number;
  usedBytes: number;
  freeBytes: number;
  messagesBytes: number;
  checkpointsBytes: number;
  otherBytes: number;
  reclaimedBytes: number | null;
  diskFreeBytes: number | null;
  /** Compact JSON: [[name, rows, bytes], ...]. */
  tables: string;
};

/** A stored row as the engine returns it: other writers may have put anything there, so it is validated before use. */
export type StoredSample = Record<keyof SampleInsert | "id", unknown>;

export type HistoryStore = {
  /**
   * Inserts the sample unless one with its key exists, then prunes samples
   * older than `pruneBeforeMs` and the oldest beyond `maxRows`, in one short
   * write. Returns the new row's id, or null when the key was taken.
   */
  insertSample(sample: SampleInsert, options: { pruneBeforeMs: number; maxRows: number }): Promise<number | null>;
  /** Samples taken at or after `fromMs`, oldest first. */
  listSince(options: { fromMs: number }): Promise<StoredSample[]>;
  /** The newest sample, or null. */
  latest(): Promise<StoredSample | null>;
  hasKey(sampleKey: string): Promise<boolean>;
};
