// The cleanup pass's own SQLite connection (the slice thread's; the
// benchmark opens the same). The pass reads each page about once, so the
// driver's 16 MiB page cache buys nothing, and its thousands of page-sized
// allocations fragment the heap that a 30 MB row's transient buffers then
// have to grow past: on the compaction benchmark's base, the pass peaked at
// 262-265 MiB with 2 MiB against 277-283 MiB with 16 MiB, and was no slower
// (4.3-4.4 s of work against 4.5-5.0 s).
import "server-only";
import { openDatabase, type DbHandle } from "@/server/db/client";
import type { CompactionStore } from "../store";
import type { HugeRowOptions } from "../store/collect-garbage";
import { createSqliteCompactionStore } from "../store/sqlite-store";

export const PASS_CACHE_KIB = 2048;

/** The pass's own store on that connection: its thread's heap is small, so a huge row is judged or read after a collection. */
export const PASS_STORE_OPTIONS: HugeRowOptions = { collectBeforeHugeRows: true };

export function openPassConnection(file: string): DbHandle {
  return openDatabase({ file, migrate: false, cacheKiB: PASS_CACHE_KIB });
}

/** The connection and the store the pass runs on (the caller closes `handle`). */
export function openPassStore(file: string): { handle: DbHandle; store: CompactionStore } {
  const handle = openPassConnection(file);
  return { handle, store: createSqliteCompactionStore(handle.sqlite, PASS_STORE_OPTIONS) };
}
