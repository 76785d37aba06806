// Wire types of the storage history (GET /api/v1/system/database/history),
// shared by the server verb and the browser fetchers.
import { z } from "zod";

const count = z.number().int().nonnegative();

/** Samples older than this are pruned. */
export const STORAGE_HISTORY_RETENTION_DAYS = 400;
/** The window the growth fit uses. */
export const GROWTH_WINDOW_DAYS = 30;

/** Why a sample was taken: the daily sample, or the maintenance operation it follows. */
export const storageTriggerSchema = z.enum(["daily", "compaction", "checkpoint_cleanup", "thread_expiry", "vacuum", "restore", "payload_restore"]);
export type StorageTrigger = z.infer<typeof storageTriggerSchema>;
/** Triggers that are maintenance operations (marked on the chart). */
export const MAINTENANCE_TRIGGERS = storageTriggerSchema.options.filter((trigger) => trigger !== "daily") as Exclude<StorageTrigger, "daily">[];

/**
 * How a sample's sizes were read:
 * - `dbstat`: SQLite's dbstat virtual table walked per b-tree (page headers
 *   only) on a read-only connection of its own; the messages table's bytes
 *   are the remainder of used pages, its rows the entry count of its id index;
 * - `page_counts`: SQLite without dbstat: page count, free list and page
 *   size only (total, used and free; no per-table sizes);
 * - `catalog`: PostgreSQL's catalog: pg_table_size + pg_indexes_size per
 *   table (what pg_total_relation_size counts), rows from n_live_tup, the
 *   total from pg_database_size. No table is read.
 */
export const storageMethodSchema = z.enum(["dbstat", "page_counts", "catalog"]);
export type StorageMethod = z.infer<typeof storageMethodSchema>;

export const STORAGE_AREAS = ["messages", "checkpoints", "other"] as const;
export type StorageArea = (typeof STORAGE_AREAS)[number];

export const storageTableSizeSchema = z.object({ name: z.string(), area: z.enum(STORAGE_AREAS), rows: count, bytes: count });
export type StorageTableSize = z.infer<typeof storageTableSizeSchema>;

export const storageSampleSchema = z.object({
  id: count,
  at: z.string(),
  atMs: count,
  trigger: storageTriggerSchema,
  operationId: z.string().nullable(),
  method: storageMethodSchema,
  /** On disk: the file and its write-ahead log (SQLite), pg_database_size (PostgreSQL). */
  totalBytes: count,
  /** Pages in use (SQLite), pg_database_size (PostgreSQL); the areas add up to it. */
  usedBytes: count,
  /** Pages on SQLite's free list (reused before the file grows); 0 on PostgreSQL. */
  freeBytes: count,
  areas: z.object({ messages: count, checkpoints: count, other: count }),
  /** What the operation reported giving back (payload bytes removed, file bytes freed); null for daily samples. */
  reclaimedBytes: count.nullable(),
  /** Space left on the file system that holds the database (SQLite); null when unknown. */
  diskFreeBytes: count.nullable(),
  /** Per table (its indexes included), largest first; only with `detail=tables`, and always on `latest`. */
  tables: z.array(storageTableSizeSchema).optional(),
});
export type StorageSample = z.infer<typeof storageSampleSchema>;

export const growthFitSchema = z.discriminatedUnion("state", [
  z.object({
    state: z.literal("fit"),
    /** Growth of the used bytes per day, maintenance steps left out (each interval between operations has its own level). */
    bytesPerDay: z.number(),
    /** Standard error of bytesPerDay. */
    standardErrorPerDay: z.number().nonnegative(),
    /** Two-sided 95 % bounds of bytesPerDay (Student's t). */
    lowBytesPerDay: z.number(),
    highBytesPerDay: z.number(),
    /** The fitted used bytes at anchorAtMs (the newest sample). */
    anchorAtMs: count,
    anchorBytes: z.number(),
    samples: count,
    windowDays: count,
  }),
  z.object({ state: z.literal("insufficient_data"), samples: count, windowDays: count }),
]);
export type GrowthFit = z.infer<typeof growthFitSchema>;

export const forecastSchema = z.discriminatedUnion("state", [
  /** The database is already this size or larger. */
  z.object({ state: z.literal("reached"), targetBytes: count }),
  z.object({ state: z.literal("not_growing"), targetBytes: count }),
  z.object({ state: z.literal("insufficient_data"), targetBytes: count }),
  /** Further out than the horizon (10 years) even at the fastest likely rate. */
  z.object({ state: z.literal("beyond_horizon"), targetBytes: count }),
  z.object({
    state: z.literal("reaches"),
    targetBytes: count,
    atMs: count,
    /** At the 95 % upper rate. */
    earliestMs: count,
    /** At the 95 % lower rate; null when that rate does not grow (it may never get there). */
    latestMs: count.nullable(),
  }),
]);
export type Forecast = z.infer<typeof forecastSchema>;

/** Query of GET history. Repeated or unknown parameters are refused. */
export const historyQuerySchema = z.strictObject({
  /** Samples of the last N days (1..400, default 120). */
  days: z.coerce.number().int().min(1).max(STORAGE_HISTORY_RETENTION_DAYS).default(120),
  /** `tables`: every sample carries its per-table sizes (bigger answer). */
  detail: z.enum(["tables"]).optional(),
  /** Forecast when the database reaches this many bytes. */
  targetBytes: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER).optional(),
});
export type HistoryQuery = z.infer<typeof historyQuerySchema>;

export const historyResponseSchema = z.union([
  z.object({
    capability: z.literal("supported"),
    engine: z.enum(["sqlite", "postgres"]),
    retentionDays: count,
    days: count,
    /** Oldest first. */
    samples: z.array(storageSampleSchema),
    /** The newest sample with its tables (also when older than `days`), or null. */
    latest: storageSampleSchema.nullable(),
    /** Stored rows that failed validation and were left out (fail-closed). */
    malformedSamples: count,
    growth: growthFitSchema,
    forecast: forecastSchema.optional(),
  }),
  z.object({ capability: z.literal("unsupported") }),
]);
export type HistoryResponse = z.infer<typeof historyResponseSchema>;
export type SupportedHistory = Extract<HistoryResponse, { capability: "supported" }>;
