// Admission cleanup's lookups on a 2-turn and a 1,000-turn full-mode thread
// (the mode where each checkpoint body is the whole conversation): the head
// and parent lookups admission runs (channel_versions digests read from
// metadata), against parsing both bodies' channel_versions (what admission
// did before the digest) in the same run. Reads only, repeated, so nothing
// is deleted. The long thread: two agent runs around turns appended as real
// checkpoints (server/checkpoints/long-thread-test-support.ts).
// Prints one JSON object per thread and one summary line.
//
//   npx tsx --conditions=react-server scripts/bench/checkpoint-admission.ts [--turns 1000] [--reps 200]
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { openDatabase } from "@/server/db/client";
import { systemClock } from "@/server/clock";
import { createCheckpointAccessor } from "@/server/checkpoints/accessor";
import { appendTurns } from "@/server/checkpoints/long-thread-test-support";
import { startRun } from "@/server/checkpoints/runs";
import { openSqliteCheckpoints } from "@/server/checkpoints/sqlite-saver";
import { createThreadLocks } from "@/server/checkpoints/thread-lock";
import { createThread } from "@/server/checkpoints/threads";

function flag(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  const value = i >= 0 ? Number(process.argv[i + 1]) : fallback;
  if (!Number.isInteger(value) || value < 3) throw new Error(`${name} takes an integer >= 3`);
  return value;
}

async function main(): Promise<void> {
  const turns = flag("--turns", 1000);
  const reps = flag("--reps", 200);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ckpt-admission-bench-"));
  const handle = openDatabase({ file: path.join(dir, "bench.db") });
  try {
    const { saver, store } = openSqliteCheckpoints({ sqlite: handle.sqlite, mode: "full" });
    const accessor = createCheckpointAccessor({ saver, config: { mode: "full", snapshotFrequency: 10 } });
    let n = 0;
    const deps = { accessor, clock: systemClock, newId: () => `a-${String(++n).padStart(7, "0")}`, locks: createThreadLocks(), toolPayloadBytes: 0 };
    const build = async (size: number) => {
      const { threadId } = await createThread(deps);
      await startRun(deps, { threadId, content: "first" });
      if (size > 2) await appendTurns({ accessor, threadId, turns: size - 2, newId: deps.newId });
      await startRun(deps, { threadId, content: "last" });
      return threadId;
    };
    const bodyVersions = handle.sqlite.prepare(
      "SELECT json_extract(CAST(checkpoint AS TEXT), '$.channel_versions') AS v FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = '' AND checkpoint_id = ?",
    );
    const rows = [];
    for (const size of [2, turns]) {
      const threadId = await build(size);
      const head = store.admissionHead(threadId)!;
      if (!head.durationOnly || !head.versions?.startsWith("digest:")) throw new Error("the head is not a stamped duration leaf");
      const bodyBytes = (handle.sqlite.prepare("SELECT length(checkpoint) AS n FROM checkpoints WHERE thread_id = ? AND checkpoint_id = ?").get(threadId, head.parentId) as { n: number }).n;
      let t0 = performance.now();
      for (let i = 0; i < reps; i += 1) {
        store.admissionHead(threadId);
        store.channelVersions(threadId, head.parentId!);
      }
      const digestMs = (performance.now() - t0) / reps;
      t0 = performance.now();
      for (let i = 0; i < reps; i += 1) {
        bodyVersions.get(threadId, head.id);
        bodyVersions.get(threadId, head.parentId);
      }
      const bodyParseMs = (performance.now() - t0) / reps;
      const row = { bench: "checkpoint-admission", mode: "full", turns: size, parentBodyBytes: bodyBytes, digestLookupsMs: +digestMs.toFixed(4), bodyParseMs: +bodyParseMs.toFixed(4) };
      rows.push(row);
      console.log(JSON.stringify(row));
    }
    const [small, large] = rows as [(typeof rows)[0], (typeof rows)[0]];
    console.log(
      `checkpoint-admission: head+parent lookups ${small.digestLookupsMs} ms at 2 turns, ${large.digestLookupsMs} ms at ${turns} turns ` +
        `(${(large.digestLookupsMs / small.digestLookupsMs).toFixed(2)}x); parsing the bodies instead: ${small.bodyParseMs} -> ${large.bodyParseMs} ms ` +
        `(${(large.bodyParseMs / small.bodyParseMs).toFixed(1)}x)`,
    );
  } finally {
    handle.sqlite.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
