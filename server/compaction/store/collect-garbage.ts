// A full garbage collection on demand, for the pass's own thread before it
// judges a very large row (sqlite-row-facts.ts) or reads one for the JS
// reducer (sqlite-candidates.ts). Judging a 30 MB row briefly
// holds about four times its size (SQLite's copy of the text, its parse, the
// JSONB and that JSONB's copy in a Buffer). V8 frees a dead Buffer only at
// its next full collection, which external memory alone triggers after some
// 64 MiB: without a collection, the previous large row's Buffer and a young
// generation full of garbage were still resident when the next large row's
// transient buffers arrived, and the pass's peak RSS went past 300 MiB on
// the benchmark (257-268 MiB with it, same speed).
// V8 exposes `gc` only through a flag. The flag is set just long enough to
// take `gc` from a fresh context, then cleared: contexts and workers created
// later (Next's sandboxes, the next slice's thread) get no `gc`.
import "server-only";
import v8 from "node:v8";
import vm from "node:vm";

/** With `collectBeforeHugeRows`, rows from this size on are read after a full garbage collection. */
export const COLLECT_BEFORE_ROW_BYTES = 8 * 1024 * 1024;

export type HugeRowOptions = {
  /**
   * Collect garbage before reading each row of COLLECT_BEFORE_ROW_BYTES or
   * more: for the pass's own thread, whose heap is small. Off on the
   * server's main thread, where a full collection would stop every request.
   */
  collectBeforeHugeRows?: boolean;
};

// V8's gc function, found once per thread: the heap it collects is the thread's, not a runtime's.
let collect: (() => void) | null = null;

export function collectGarbage(): void {
  if (collect === null) {
    v8.setFlagsFromString("--expose-gc");
    try {
      collect = vm.runInNewContext("gc") as () => void;
    } finally {
      v8.setFlagsFromString("--no-expose-gc");
    }
  }
  collect();
}

/** Collects before a row of `bytes` when the options ask for it and the row is huge. */
export function collectBeforeHugeRow(options: HugeRowOptions, bytes: number): void {
  if (options.collectBeforeHugeRows === true && bytes >= COLLECT_BEFORE_ROW_BYTES) collectGarbage();
}
