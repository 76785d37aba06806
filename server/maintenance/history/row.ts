// Stored samples back to wire samples, fail-closed: a row another writer
// changed (a wrong type, an unknown trigger, tables that are not our JSON)
// is left out and counted, never guessed at.
import { z } from "zod";
import { storageMethodSchema, storageTriggerSchema, type StorageSample } from "@/lib/database/history-api";
import { areaOf } from "./areas";
import type { StoredSample } from "./store";

const count = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);

const storedSchema = z.object({
  id: count,
  atMs: count,
  sampleKey: z.string(),
  trigger: storageTriggerSchema,
  operationId: z.string().max(200).nullable(),
  method: storageMethodSchema,
  totalBytes: count,
  usedBytes: count,
  freeBytes: count,
  messagesBytes: count,
  checkpointsBytes: count,
  otherBytes: count,
  reclaimedBytes: count.nullable(),
  diskFreeBytes: count.nullable(),
  tables: z.string().max(64 * 1024),
});

const tablesSchema = z.array(z.tuple([z.string().min(1).max(200), count, count])).max(1000);

function parseTables(text: string): z.infer<typeof tablesSchema> | null {
  try {
    const parsed = tablesSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** The wire sample, or null when the stored row is malformed. */
export function toWireSample(row: StoredSample, options: { withTables: boolean }): StorageSample | null {
  const parsed = storedSchema.safeParse(row);
  if (!parsed.success) return null;
  const s = parsed.data;
  const tables = parseTables(s.tables);
  if (!tables || s.atMs > 8.64e15) return null;
  return {
    id: s.id,
    at: new Date(s.atMs).toISOString(),
    atMs: s.atMs,
    trigger: s.trigger,
    operationId: s.operationId,
    method: s.method,
    totalBytes: s.totalBytes,
    usedBytes: s.usedBytes,
    freeBytes: s.freeBytes,
    areas: { messages: s.messagesBytes, checkpoints: s.checkpointsBytes, other: s.otherBytes },
    reclaimedBytes: s.reclaimedBytes,
    diskFreeBytes: s.diskFreeBytes,
    ...(options.withTables ? { tables: tables.map(([name, rows, bytes]) => ({ name, area: areaOf(name), rows, bytes })) } : {}),
  };
}
