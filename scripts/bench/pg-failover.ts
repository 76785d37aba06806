// Failover benchmark: two app instances on one PostgreSQL database, the
// instance holding the worker lease killed (SIGKILL) mid-pass again and
// again, a fresh instance started in its place each time, until `--kills`
// kills have happened across runs. Each run seeds a fresh database and ends
// when the pass succeeds; then every row must be either untouched or fully
// compacted (no half-written row) and the pass's counts must equal an
// uninterrupted run's (every seeded row changed, the same bytes).
//   TEST_POSTGRES_URL=postgresql://... npx tsx --conditions=react-server scripts/bench/pg-failover.ts [--kills 50] [--tasks 40] [--real-timers]
// With --real-timers the instances keep production's timers (15 s lease
// polls, the one-minute readiness delay of a first start): each kill then
// reports how long the takeover took (kill to the next "leader") and how
// long after the takeover the pass committed its next batch (resume).
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createPgCompactionStore } from "@/server/compaction/store/pg-store";
import { applyPgMigrations } from "@/server/db/pg/migrate";
import { createEmptyPgDatabase } from "@/server/db/pg/test-db";
import { createPgWorkspaceStore } from "@/server/workspace/pg-store";
import { createPgDb, type PgDb } from "@/server/db/pg/pg-db";
import { readPgConfig } from "@/server/db/pg/config";
import { armPolicyOn } from "@/server/compaction/test-support";

const OLD = "2025-01-01T00:00:00Z";
const PER_TASK = 25;

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : fallback;
}

async function seed(client: PgDb, tasks: number): Promise<{ rows: number; bytes: number }> {
  const pool = client;
  const store = createPgWorkspaceStore(pool);
  for (let t = 0; t < tasks; t += 1) {
    const id = `t${String(t).padStart(4, "0")}`;
    await store.writeTransaction(async (tx) => {
      await tx.insertTask({ id, title: id, state: "COMPLETED", createdAt: OLD, updatedAt: OLD, queuedForStep: false });
      await tx.insertSession({ id: `${id}-s`, taskId: id, state: "COMPLETED", startedAt: OLD, updatedAt: OLD, completedAt: OLD });
      await tx.insertTurn({ id: `${id}-u`, sessionId: `${id}-s`, startedAt: OLD, completedAt: OLD });
      for (let m = 0; m < PER_TASK; m += 1) {
        const callId = `${id}-c${m}`;
        const metadata = JSON.stringify({
          tool_call_id: callId,
          status: "complete",
          normalized: { kind: "shell_exec", shell_exec: { command: "make", work_dir: "/r", output: { exit_code: 0, stdout: `out ${m} `.repeat(2000), stderr: "", truncated: false } } },
        });
        await tx.insertMessage({ id: `${id}-m${m}`, sessionId: `${id}-s`, turnId: `${id}-u`, authorType: "agent", type: "tool_execute", content: "", metadata, toolCallId: callId, createdAt: OLD, updatedAt: OLD });
      }
    });
  }
  await armPolicyOn(createPgCompactionStore(pool), { value: 1, unit: "weeks" }, Date.now());
  return { rows: tasks * PER_TASK, bytes: (await client.one<{ b: number }>(`select sum(octet_length(metadata))::bigint as b from messages`))!.b };
}

type Instance = { child: ChildProcess; leader: boolean; leaderAt: number | null; ready: Promise<void> };
const REAL_TIMERS = process.argv.includes("--real-timers");

function startInstance(env: Record<string, string>): Instance {
  const child = spawn("npx", ["tsx", "--conditions=react-server", "scripts/bench/pg-instance.ts"], {
    env: { ...process.env, ...env, ...(REAL_TIMERS ? { BENCH_REAL_TIMERS: "1" } : {}) },
    stdio: ["ignore", "pipe", "inherit"],
    detached: true,
  });
  const instance: Instance = { child, leader: false, leaderAt: null, ready: Promise.resolve() };
  instance.ready = new Promise((resolve) => {
    child.stdout!.on("data", (chunk: Buffer) => {
      const text = chunk.toString();
      if (text.includes("ready")) resolve();
      if (text.includes("leader")) {
        instance.leader = true;
        instance.leaderAt = Date.now();
      }
    });
  });
  return instance;
}

// npx starts tsx which starts node: kill the whole process group, as a crash would.
const kill = (instance: Instance) => {
  try {
    process.kill(-instance.child.pid!, "SIGKILL");
  } catch {
    // already gone
  }
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type RunRecord = { runtime: { activeOperation: { changedMessages?: number } | null; latestRun: { state: string; changedMessages: number; payloadBytes: number } | null } };

async function oneRun(serverKills: { left: number }, tasks: number) {
  const db = await createEmptyPgDatabase();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pg-failover-"));
  const client = createPgDb(readPgConfig(db.url, { PG_POOL_MAX: "2", PG_STATEMENT_TIMEOUT_MS: "0", PG_LOCK_TIMEOUT_MS: "0" }));
  const instances: Instance[] = [];
  try {
    await applyPgMigrations(client);
    const seeded = await seed(client, tasks);
    const env = { DATABASE_URL: db.url, DATA_DIR: dir };
    instances.push(startInstance(env), startInstance(env));
    await Promise.all(instances.map((i) => i.ready));
    let kills = 0;
    let lastChanged = -1;
    // Where the holder's slices run: a pass thread's own pool shows as "<name> pass" sessions (none: inline, e.g. compressed timers).
    let passSessions = 0;
    const started = Date.now();
    // Per kill: when it happened, when another instance held the lease, when the pass's counts moved again.
    const takeovers: Array<{ killAt: number; changedAtKill: number; leaderAt: number | null; resumedAt: number | null }> = [];
    for (;;) {
      const record = JSON.parse((await client.one<{ value: string }>(`select value from settings where key = 'tool_payload_retention'`))!.value) as RunRecord;
      const latest = record.runtime.latestRun;
      if (latest?.state === "succeeded") {
        const rows = await client.query<{ metadata: string }>(`select metadata from messages`);
        let halfWritten = 0;
        let compacted = 0;
        for (const row of rows) {
          try {
            const parsed = JSON.parse(row.metadata) as { payload_retention?: unknown; normalized?: { shell_exec?: { output?: { stdout?: string } } } };
            if (parsed.payload_retention) compacted += 1;
            else if (typeof parsed.normalized?.shell_exec?.output?.stdout !== "string") halfWritten += 1;
          } catch {
            halfWritten += 1;
          }
        }
        // The pass may end with the batch that resumed it.
        const last = takeovers.at(-1);
        if (last && last.leaderAt === null) last.leaderAt = instances.find((i) => i.leader)?.leaderAt ?? null;
        if (last && last.resumedAt === null) last.resumedAt = Date.now();
        const timings = takeovers.map((t) => ({
          takeoverMs: t.leaderAt === null ? null : t.leaderAt - t.killAt,
          resumeAfterTakeoverMs: t.leaderAt === null || t.resumedAt === null ? null : Math.max(0, t.resumedAt - t.leaderAt),
        }));
        return { kills, passSessionsSeen: passSessions, ms: Date.now() - started, seededRows: seeded.rows, changed: latest.changedMessages, compacted, halfWritten, payloadBytes: latest.payloadBytes, takeovers: timings };
      }
      const changed = record.runtime.activeOperation?.changedMessages ?? 0;
      const seen = await client.one<{ n: string }>(`select count(*) as n from pg_stat_activity where datname = current_database() and application_name like '% pass'`);
      passSessions = Math.max(passSessions, Number(seen?.n ?? 0));
      const leader = instances.find((i) => i.leader);
      const pending = takeovers.at(-1);
      if (pending && pending.leaderAt === null && leader) pending.leaderAt = leader.leaderAt;
      // The next committed batch after the kill (a finished pass counts too).
      if (pending && pending.resumedAt === null && changed > pending.changedAtKill) pending.resumedAt = Date.now();
      // Kill the lease holder once it has committed at least one batch since the last kill.
      if (leader && serverKills.left > 0 && changed > lastChanged && changed > 0) {
        lastChanged = changed;
        kill(leader);
        takeovers.push({ killAt: Date.now(), changedAtKill: changed, leaderAt: null, resumedAt: null });
        instances.splice(instances.indexOf(leader), 1);
        kills += 1;
        serverKills.left -= 1;
        const replacement = startInstance(env);
        instances.push(replacement);
      }
      if (Date.now() - started > 600_000) throw new Error("run did not finish in 10 minutes");
      await sleep(20);
    }
  } finally {
    for (const instance of instances) kill(instance);
    await client.close();
    await sleep(200);
    await db.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function main() {
  const target = Number(arg("kills", "50"));
  const tasks = Number(arg("tasks", "40"));
  const budget = { left: target };
  const runs = [];
  while (budget.left > 0) {
    const run = await oneRun(budget, tasks);
    runs.push(run);
    process.stderr.write(`run ${runs.length}: ${JSON.stringify(run)}\n`);
    if (run.kills === 0) break;
  }
  const kills = runs.reduce((sum, run) => sum + run.kills, 0);
  const halfWritten = runs.reduce((sum, run) => sum + run.halfWritten, 0);
  const countsEqual = runs.every((run) => run.changed === run.seededRows && run.compacted === run.seededRows);
  const bytes = [...new Set(runs.map((run) => run.payloadBytes))];
  console.log(JSON.stringify({ kills, runs: runs.length, halfWritten, countsEqual, payloadBytesPerRun: bytes, perRun: runs }, null, 2));
  const timings = runs.flatMap((run) => run.takeovers);
  const worst = (key: "takeoverMs" | "resumeAfterTakeoverMs") => Math.max(...timings.map((t) => t[key] ?? Number.POSITIVE_INFINITY));
  const timing = REAL_TIMERS && timings.length > 0 ? `; real timers: takeover at most ${worst("takeoverMs")} ms after the kill, the pass's next batch at most ${worst("resumeAfterTakeoverMs")} ms after the takeover` : "";
  const onThread = runs.some((run) => run.passSessionsSeen > 0) ? "the slices on their pass thread" : "the slices inline";
  console.log(`failover (${onThread}): ${kills} kills of the lease holder over ${runs.length} runs; half-written rows ${halfWritten}; final counts equal an uninterrupted run: ${countsEqual && bytes.length === 1}${timing}`);
  if (halfWritten > 0 || !countsEqual || bytes.length !== 1) process.exitCode = 1;
}

void main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
