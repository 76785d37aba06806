// Checkpoint retention benchmark: per mode, N turns through the run API on
// a fresh database (regenerating an answer every K turns in both modes: full
// mode forks and leaves sibling branches, delta linearizes), then
//  - baseline: rows and bytes per table as the runtime left them,
//  - admission: the same script on a second thread with admission cleanup,
//  - engine: the exhaustive maintenance pass on the baseline thread
//    (trailing leaf, leaf siblings, proven chain-link grafts),
// checking that the head conversation is identical before and after. Also
// times one admission cleanup on a 1-turn and an N-turn thread (the baseline
// of that comparison is measured in the same run). Prints JSON + one line.
//
//   npx tsx scripts/bench/checkpoint-retention.ts --turns 100 --modes full,delta --payload-bytes 256
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { openSqliteDb } from "@/server/db/sqlite-db";
import { manualClock } from "@/server/clock";
import { createCheckpointAccessor, type CheckpointAccessor } from "@/server/checkpoints/accessor";
import type { ModeConfig } from "@/server/checkpoints/mode";
import { startRun, type RunDeps } from "@/server/checkpoints/runs";
import { openSqliteCheckpoints } from "@/server/checkpoints/sqlite-saver";
import type { CheckpointStore, ThreadTotals } from "@/server/checkpoints/store";
import { createThreadLocks } from "@/server/checkpoints/thread-lock";
import { createThread, regenerate } from "@/server/checkpoints/threads";
import { admissionHook, cleanupAtAdmission } from "@/server/checkpoints/cleanup/admission-cleanup";
import { maintainThread } from "@/server/checkpoints/cleanup/maintenance";

type Options = { turns: number; modes: ModeConfig["mode"][]; payloadBytes: number; frequency: number; regenerateEvery: number };

function parseArgs(argv: string[]): Options {
  const o: Options = { turns: 50, modes: ["full", "delta"], payloadBytes: 256, frequency: 10, regenerateEvery: 10 };
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1] ?? ""];
    if (flag === "--turns") o.turns = Number(value);
    else if (flag === "--modes") o.modes = value.split(",") as Options["modes"];
    else if (flag === "--payload-bytes") o.payloadBytes = Number(value);
    else if (flag === "--snapshot-frequency") o.frequency = Number(value);
    else if (flag === "--regenerate-every") o.regenerateEvery = Number(value);
    else throw new Error(`unknown flag ${flag}`);
  }
  if (!Number.isInteger(o.turns) || o.turns < 2) throw new Error("--turns must be an integer >= 2");
  return o;
}

function deps(accessor: CheckpointAccessor, payloadBytes: number, prefix: string): RunDeps {
  let n = 0;
  const clock = manualClock(Date.UTC(2026, 0, 1));
  return {
    accessor,
    newId: () => `${prefix}-${String(++n).padStart(6, "0")}`,
    locks: createThreadLocks(),
    toolPayloadBytes: payloadBytes,
    clock: { now: () => (clock.advance(7), clock.now()) },
  };
}

async function conversation(accessor: CheckpointAccessor, threadId: string): Promise<string> {
  const s = await accessor.getState(threadId);
  return JSON.stringify(s?.values.messages.map((m) => [m.id, m.content]));
}

async function script(d: RunDeps, threadId: string, o: Options): Promise<void> {
  for (let turn = 1; turn <= o.turns; turn += 1) {
    const r = await startRun(d, { threadId, content: `turn ${turn}` });
    if (r.status !== "success") throw new Error(`turn ${turn} failed`);
    // The same workload in both modes (delta linearizes the regenerate).
    if (o.regenerateEvery > 0 && turn % o.regenerateEvery === 0) {
      const s = await d.accessor.getState(threadId);
      const reply = s!.values.messages.filter((m) => m.getType() === "ai").at(-1)!;
      await regenerate(d, threadId, String(reply.id));
    }
  }
}

function bytes(t: ThreadTotals): number {
  return t.checkpointBytes + t.writesBytes;
}

async function timeAdmission(store: CheckpointStore, threadId: string): Promise<number> {
  const started = performance.now();
  const outcome = await cleanupAtAdmission({ store, threadId, selectors: [] });
  const ms = performance.now() - started;
  if (outcome.action !== "deleted") throw new Error(`admission did not reclaim (${outcome.reason})`);
  return ms;
}

async function runMode(o: Options, mode: ModeConfig["mode"]) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ckpt-retention-bench-"));
  const handle = openSqliteDb({ file: path.join(dir, "bench.db") });
  try {
    const config: ModeConfig = { mode, snapshotFrequency: o.frequency };
    const { saver, store } = openSqliteCheckpoints({ db: handle, mode });
    const accessor = createCheckpointAccessor({ saver, config });
    const plain = deps(accessor, o.payloadBytes, "plain");
    const { threadId: baselineThread } = await createThread(plain);
    const started = performance.now();
    await script(plain, baselineThread, o);
    const scriptMs = performance.now() - started;
    const baseline = await store.threadTotals(baselineThread);

    const admitted = { ...deps(accessor, o.payloadBytes, "admit"), admit: admissionHook({ store }) };
    const { threadId: admissionThread } = await createThread(admitted);
    await script(admitted, admissionThread, o);
    const withAdmission = await store.threadTotals(admissionThread);

    // Flat cost: one admission on a 1-turn thread vs on the N-turn thread (same run).
    const small = deps(accessor, o.payloadBytes, "small");
    const { threadId: smallThread } = await createThread(small);
    await startRun(small, { threadId: smallThread, content: "one" });
    const admissionSmallMs = await timeAdmission(store, smallThread);
    const before = await conversation(accessor, baselineThread);
    const admissionLargeMs = await timeAdmission(store, baselineThread);
    const afterAdmission = await store.threadTotals(baselineThread);

    const engineStarted = performance.now();
    const report = await maintainThread({ store, dryRun: false, graftLinks: true }, baselineThread);
    const engineMs = performance.now() - engineStarted;
    const same = (await conversation(accessor, baselineThread)) === before;
    if (!same) throw new Error(`${mode}: head conversation changed`);
    return {
      mode,
      turns: o.turns,
      payloadBytes: o.payloadBytes,
      snapshotFrequency: o.frequency,
      regenerateEvery: o.regenerateEvery,
      scriptMs: Math.round(scriptMs),
      baseline,
      withAdmission,
      afterAdmissionOnce: afterAdmission,
      afterEngine: report.after,
      engine: { ...report.deleted, orphanWritesAfter: report.orphanWritesAfter, ms: Math.round(engineMs) },
      admissionMs: { oneTurnThread: +admissionSmallMs.toFixed(3), nTurnThread: +admissionLargeMs.toFixed(3) },
      conversationUnchanged: same,
    };
  } finally {
    handle.closeNow();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const o = parseArgs(process.argv.slice(2));
  const results = [];
  for (const mode of o.modes) results.push(await runMode(o, mode));
  process.stdout.write(`${JSON.stringify({ schema: "checkpoint-retention/v1", node: process.version, results }, null, 2)}\n`);
  const pct = (a: number, b: number) => `${(((a - b) / a) * 100).toFixed(0)}%`;
  const line = results
    .map(
      (r) =>
        `${r.mode}: rows ${r.baseline.checkpoints}->${r.afterEngine.checkpoints} ckpt, bytes ${bytes(r.baseline)}->${bytes(r.afterEngine)} (-${pct(bytes(r.baseline), bytes(r.afterEngine))}) by engine, ` +
        `${bytes(r.withAdmission)} (-${pct(bytes(r.baseline), bytes(r.withAdmission))}) with admission; admission ${r.admissionMs.oneTurnThread}ms@1 vs ${r.admissionMs.nTurnThread}ms@${r.turns} turns`,
    )
    .join(" | ");
  process.stdout.write(`checkpoint-retention ${o.turns} turns: ${line}\n`);
}

void main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exitCode = 1;
});
