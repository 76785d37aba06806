// The PostgreSQL implementation of the HistoryStore (statements mirror sqlite-store.ts).
import type { PgDb } from "@/server/db/pg/pg-db";
import type { HistoryStore, StoredSample } from "./store";

const COLUMNS = `id, at_ms as "atMs", sample_key as "sampleKey", trigger, operation_id as "operationId", method,
  total_bytes as "totalBytes", used_bytes as "usedBytes", free_bytes as "freeBytes", messages_bytes as "messagesBytes",
  checkpoints_bytes as "checkpointsBytes", other_bytes as "otherBytes", reclaimed_bytes as "reclaimedBytes",
  disk_free_bytes as "diskFreeBytes", tables`;

export function createPgHistoryStore(db: PgDb): HistoryStore {
  return {
    // Another instance may insert the same key at once: the unique index decides, the loser inserts nothing.
    insertSample: (s, options) =>
      db.transaction(async () => {
        const row = await db.one<{ id: number }>(
          `insert into storage_samples (at_ms, sample_key, trigger, operation_id, method, total_bytes, used_bytes, free_bytes,
             messages_bytes, checkpoints_bytes, other_bytes, reclaimed_bytes, disk_free_bytes, tables)
           values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
           on conflict (sample_key) do nothing returning id`,
          [s.atMs, s.sampleKey, s.trigger, s.operationId, s.method, s.totalBytes, s.usedBytes, s.freeBytes, s.messagesBytes, s.checkpointsBytes, s.otherBytes, s.reclaimedBytes, s.diskFreeBytes, s.tables],
        );
        await db.run(`delete from storage_samples where at_ms < $1`, [options.pruneBeforeMs]);
        await db.run(`delete from storage_samples where id <= (select id from storage_samples order by id desc limit 1 offset $1)`, [options.maxRows]);
        return row?.id ?? null;
      }),

    listSince: ({ fromMs }) => db.query<StoredSample>(`select ${COLUMNS} from storage_samples where at_ms >= $1 order by at_ms, id`, [fromMs]),

    latest: () => db.one<StoredSample>(`select ${COLUMNS} from storage_samples order by at_ms desc, id desc limit 1`),

    hasKey: async (sampleKey) => (await db.one(`select 1 from storage_samples where sample_key = $1`, [sampleKey])) !== null,
  };
}
