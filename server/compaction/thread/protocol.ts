// The messages between the compaction worker (main thread) and a cleanup slice
// running on a worker thread. Only ids, counts and codes cross: never bodies.
import type { PgConfig } from "@/server/db/pg/config";
import type { BatchCommitted, CleanupPassOptions, CleanupPassResult } from "../cleanup/pass-options";

/** The pass options that are plain data, so they can cross to the thread. */
const SLICE_LIMIT_KEYS = ["workBudgetMs", "yieldMs", "minYieldMs", "deadlineMs", "pageLimits", "maxBatchRows"] as const;
export type SliceLimits = Pick<CleanupPassOptions, (typeof SLICE_LIMIT_KEYS)[number]>;

/** The limits among a pass's options (absent ones stay absent). */
export function sliceLimits(options: SliceLimits): SliceLimits {
  return Object.fromEntries(SLICE_LIMIT_KEYS.filter((key) => options[key] !== undefined).map((key) => [key, options[key]])) as SliceLimits;
}

/** What one slice needs besides the database file; the rest of the pass options are functions that stay on the main thread. */
export type SliceRequest = SliceLimits & {
  operationId: string;
  /** The main thread's clock at the start of the slice: the thread's clock runs on from it. */
  nowMs: number;
  /** Test seam: the thread's clock stands still at `nowMs`, as a manual test clock does. */
  fixedClock?: boolean;
};

/**
 * The database the slice opens for itself: the workspace file (SQLite), or a
 * small pool of its own on the server (PostgreSQL; the URL crosses inside the
 * process only and is never logged).
 */
export type PassDatabase = { engine: "sqlite"; file: string } | { engine: "postgres"; config: PgConfig };

export type ThreadData = {
  /** The app root: the thread resolves the database drivers from there, wherever the bundle lies. */
  root: string;
  database: PassDatabase;
  request: SliceRequest;
  /** Int32 flags the main thread sets and the thread reads between pages and batches. */
  flags: SharedArrayBuffer;
};

/** Indexes into the flags. */
export const FLAG = { stop: 0, pause: 1 } as const;
export const FLAG_COUNT = 2;

export type LogLevel = "debug" | "info" | "warn" | "error";

export type FromThread =
  | { type: "ready" }
  /** PostgreSQL: the slice's own pool could not open a session (no slot left, a refused login): nothing was read. */
  | { type: "no_session"; code: string | null }
  | { type: "admit"; seq: number }
  | { type: "release"; seq: number }
  | { type: "batch"; event: BatchCommitted }
  | { type: "log"; level: LogLevel; fields: Record<string, unknown>; msg: string }
  | { type: "done"; result: CleanupPassResult }
  | { type: "failed"; name: string; code: string | null };

export type ToThread = { type: "admitted"; seq: number; granted: boolean };
