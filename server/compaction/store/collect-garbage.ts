// A full garbage collection on demand, for the pass's own thread before it
// judges a very large row (sqlite-row-facts.ts). Judging a 30 MB row briefly
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
