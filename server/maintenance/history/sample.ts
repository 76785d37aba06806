// One storage sample from the maintenance store's footprint (read off the
// writer: dbstat on a read-only connection of its own on SQLite, the
// catalog on PostgreSQL). Only fixed words and sizes: never a row's content.
import type { DatabaseStats } from "@/lib/database/api";
import type { StorageMethod, StorageTrigger } from "@/lib/database/history-api";
import { areaOf } from "./areas";
import type { SampleInsert } from "./store";

/** Tables kept per sample, largest first; the rest still count in their areas. */
export const MAX_TABLES_PER_SAMPLE = 64;

export type SampleContext = {
  atMs: number;
  sampleKey: string;
  trigger: StorageTrigger;
  operationId: string | null;
  reclaimedBytes: number | null;
  diskFreeBytes: number | null;
  engine: "sqlite" | "postgres";
};

const whole = (value: number) => Math.max(0, Math.round(Number.isFinite(value) ? value : 0));

export function buildSample(stats: DatabaseStats, context: SampleContext): SampleInsert {
  const method: StorageMethod = context.engine === "postgres" ? "catalog" : stats.tables ? "dbstat" : "page_counts";
  const totalBytes = whole(stats.fileBytes + stats.walBytes);
  // PostgreSQL reports no free list: its database size is all in use (dead tuples included).
  const usedBytes = context.engine === "postgres" ? totalBytes : whole((stats.pageCount - stats.freePages) * stats.pageSize);
  const tables = [...(stats.tables ?? [])].sort((a, b) => b.totalBytes - a.totalBytes || a.name.localeCompare(b.name));
  let messagesBytes = 0;
  let checkpointsBytes = 0;
  for (const table of tables) {
    const area = areaOf(table.name);
    if (area === "messages") messagesBytes += table.totalBytes;
    else if (area === "checkpoints") checkpointsBytes += table.totalBytes;
  }
  return {
    atMs: context.atMs,
    sampleKey: context.sampleKey,
    trigger: context.trigger,
    operationId: context.operationId,
    method,
    totalBytes,
    usedBytes,
    freeBytes: context.engine === "postgres" ? 0 : whole(stats.freeBytes),
    messagesBytes: whole(messagesBytes),
    checkpointsBytes: whole(checkpointsBytes),
    otherBytes: whole(usedBytes - messagesBytes - checkpointsBytes),
    reclaimedBytes: context.reclaimedBytes === null ? null : whole(context.reclaimedBytes),
    diskFreeBytes: context.diskFreeBytes === null ? null : whole(context.diskFreeBytes),
    tables: JSON.stringify(tables.slice(0, MAX_TABLES_PER_SAMPLE).map((t) => [t.name, whole(t.rows), whole(t.totalBytes)])),
  };
}

/** The daily sample's key: one per UTC calendar day. */
export function dailyKey(atMs: number): string {
  return `daily:${new Date(atMs).toISOString().slice(0, 10)}`;
}

/** The key of the sample that follows an operation. */
export function operationKey(trigger: StorageTrigger, operationId: string): string {
  return `${trigger}:${operationId}`;
}
