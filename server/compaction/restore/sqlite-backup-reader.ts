// Reads a task's rows out of a SQLite backup file through a read-only
// connection of its own (never the live database's), one primary-key lookup
// per id (messages_id_uidx), with a small page cache: reading one task from
// a multi-GB backup touches only that task's pages.
import "server-only";
import { openDatabase } from "@/server/db/client";
import type { BackupReader, BackupRow } from "./backup-reader";
import { storedText } from "./backup-reader";

const ROW_SQL = `select id, type, metadata, cast(updated_at as text) as updatedAt, typeof(metadata) as storage, coalesce(octet_length(metadata), 0) as bytes from messages where id = ?`;
const BYTES_SQL = `select cast(metadata as blob) as raw from messages where id = ?`;

export function openSqliteBackupReader(options: { file: string }): BackupReader {
  // Read-only, no migration, no file-mode changes: the backup stays exactly as published.
  const { sqlite } = openDatabase({ file: options.file, readonly: true, migrate: false, cacheKiB: 2048 });
  sqlite.pragma("query_only = 1");
  const read = sqlite.prepare(ROW_SQL);
  const readBytes = sqlite.prepare(BYTES_SQL);
  return {
    async *rows(ids) {
      for (const id of ids) {
        const row = read.get(id) as { id: string; type: string; metadata: unknown; updatedAt: unknown; storage: string; bytes: number } | undefined;
        if (!row) continue;
        const base = { id: row.id, type: row.type, updatedAt: typeof row.updatedAt === "string" ? row.updatedAt : null, bytes: row.bytes };
        let out: BackupRow;
        if (row.storage !== "text" || typeof row.metadata !== "string") {
          out = { ...base, metadata: null, encoding: "utf8" };
        } else if (!row.metadata.includes("\ufffd")) {
          out = { ...base, metadata: row.metadata, encoding: "utf8" };
        } else {
          const stored = storedText((readBytes.get(id) as { raw: Buffer }).raw);
          out = { ...base, metadata: stored.text, encoding: stored.encoding };
        }
        yield out;
      }
    },
    async close() {
      if (sqlite.open) sqlite.close();
    },
  };
}
