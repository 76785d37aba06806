// What a per-task restore reads from a backup: the backup's rows of the
// message ids it asks for, one at a time, so the caller batches and writes
// while the reader waits (its memory stays bounded by one batch, whatever
// the backup's size). One implementation per engine's backup format:
// sqlite-backup-reader.ts (a read-only connection to the backup file) and
// pg-archive-reader.ts (pg_restore's COPY stream of the archive, filtered by
// id as it streams).
import type { StoredEncoding } from "../reducer/reducer";

/** A backup's row: metadata null when the stored value is not text, else a string in `encoding`. */
export type BackupRow = { id: string; type: string; metadata: string | null; encoding: StoredEncoding; updatedAt: string | null; bytes: number };

export type BackupReader = {
  /**
   * The backup's rows whose id is in `ids`, each at most once, in the
   * reader's order (SQLite: the order of `ids`; PostgreSQL: the archive's).
   */
  rows(ids: readonly string[]): AsyncIterable<BackupRow>;
  close(): Promise<void>;
};

/** Stored bytes as the stores hand them on: UTF-8 text as text, anything else one char per byte. */
export function storedText(bytes: Buffer): { text: string; encoding: StoredEncoding } {
  const text = bytes.toString("utf8");
  if (!text.includes("\ufffd")) return { text, encoding: "utf8" };
  // U+FFFD may be stored as such (valid UTF-8) or stand for invalid bytes.
  return Buffer.from(text, "utf8").equals(bytes) ? { text, encoding: "utf8" } : { text: bytes.toString("latin1"), encoding: "bytes" };
}
