// The cleanup pass's own SQLite connection (the slice thread's; the
// benchmark opens the same). The pass reads each page about once, so the
// driver's 16 MiB page cache buys nothing, and its thousands of page-sized
// allocations fragment the heap that a 30 MB row's transient buffers then
// have to grow past: measured on the benchmark base, a 2 MiB cache lowers
// the pass's peak RSS by 30-45 MiB at the same speed.
import "server-only";
import type { DbHandle } from "@/server/db/client";
import { openDatabase } from "@/server/db/client";

export const PASS_CACHE_KIB = 2048;

export function openPassConnection(file: string): DbHandle {
  return openDatabase({ file, migrate: false, cacheKiB: PASS_CACHE_KIB });
}
