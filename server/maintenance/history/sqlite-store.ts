// The SQLite implementation of the HistoryStore: reads on the read
// connection, the one write (insert and prune) as one step on the writer queue.
import type { SqliteDb } from "@/server/db/sqlite-db";
import { statement } from "@/server/db/statements";
import type { HistoryStore, StoredSample } from "./store";

const COLUMNS = `id, at_ms as atMs, sample_key as sampleKey, trigger, operation_id as operationId, method,
  total_bytes as totalBytes, used_bytes as usedBytes, free_bytes as freeBytes, messages_bytes as messagesBytes,
  checkpoints_bytes as checkpointsBytes, other_bytes as otherBytes, reclaimed_bytes as reclaimedBytes,
  disk_free_bytes as diskFreeBytes, tables`;

export function createSqliteHistoryStore(db: SqliteDb): HistoryStore {
  return {
    insertSample: (sample, options) =>
      db.write((writer) => {
        const inserted = statement(
          writer,
          `insert or ignore into storage_samples (at_ms, sample_key, trigger, operation_id, method, total_bytes, used_bytes, free_bytes,
             messages_bytes, checkpoints_bytes, other_bytes, reclaimed_bytes, disk_free_bytes, tables)
           values (@atMs, @sampleKey, @trigger, @operationId, @method, @totalBytes, @usedBytes, @freeBytes,
             @messagesBytes, @checkpointsBytes, @otherBytes, @reclaimedBytes, @diskFreeBytes, @tables)`,
        ).run(sample);
        statement(writer, `delete from storage_samples where at_ms < ?`).run(options.pruneBeforeMs);
        statement(writer, `delete from storage_samples where id <= (select id from storage_samples order by id desc limit 1 offset ?)`).run(options.maxRows);
        return inserted.changes > 0 ? Number(inserted.lastInsertRowid) : null;
      }),

    listSince: async ({ fromMs }) => statement(db.reading(), `select ${COLUMNS} from storage_samples where at_ms >= ? order by at_ms, id`).all(fromMs) as StoredSample[],

    latest: async () => (statement(db.reading(), `select ${COLUMNS} from storage_samples order by at_ms desc, id desc limit 1`).get() as StoredSample | undefined) ?? null,

    hasKey: async (sampleKey) => statement(db.reading(), `select 1 from storage_samples where sample_key = ?`).get(sampleKey) !== undefined,
  };
}
