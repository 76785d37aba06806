// A full garbage collection on demand, for the one place that needs it:
// before a very large row is judged (sqlite-row-facts.ts). Judging a 30 MB
// row briefly holds about four times its size (SQLite's copy of the text,
// its parse, the JSONB and that JSONB's copy in a Buffer). V8 frees a dead
// Buffer only at its next full collection, which external memory alone
// triggers after some 64 MiB: without a collection, the previous large
// row's Buffer and a heap full of young garbage were still resident when
// the next large row's transient buffers arrived, and the pass's peak RSS
// went past 300 MiB on the benchmark (257-268 MiB with it, same speed).
// `gc` is exposed to a fresh context only: the global object stays as it is.
import "server-only";
import v8 from "node:v8";
import vm from "node:vm";

let collect: (() => void) | null = null;

export function collectGarbage(): void {
  if (collect === null) {
    v8.setFlagsFromString("--expose-gc");
    collect = vm.runInNewContext("gc") as () => void;
  }
  collect();
}
