// Benchmark: memory of a per-task payload restore from a large backup (#29).
//   npx tsx --conditions=react-server scripts/bench/payload-restore-memory.ts [--engine sqlite|postgres] [--gb 2] [--dir /tmp/bench-payload-restore] [--reuse]
// (PostgreSQL: TEST_POSTGRES_URL names the server; bash scripts/pg-local.sh start /tmp/pg-bench prints one.)
// A workspace of --gb GiB of tool payloads (random base64 stdout, 256 KiB a
// row, so a PostgreSQL archive does not compress below the size asked for)
// holds one old task of 160 rows (40 MiB) spread among the rows of recent
// tasks. The product's own backup is taken (SQLite: VACUUM INTO, integrity
// check, hash; PostgreSQL: pg_dump --format=custom), a real pass compacts
// the old task, and then, each in a fresh child process so every peak is
// its own:
//   idle     - the runtime opened on the database, nothing done (what any
//              command costs);
//   restore  - the real restore (startPayloadRestore: backup hashed and
//              checked, rows read from the backup, proven, written back in
//              batches), followed to its end;
//   baseline - the naive read of the backup's whole messages table (SQLite:
//              `select id, metadata from messages` .all() on the file;
//              PostgreSQL: pg_restore's whole COPY stream of the table
//              buffered), keeping the task's rows.
// Peak RSS is the child's maxRSS (PostgreSQL: also pg_restore's own VmHWM,
// sampled from /proc). Prints one JSON object and a one-line summary.
import { spawn } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import Database from "better-sqlite3";
import pg from "pg";
import { systemClock } from "@/server/clock";
import { runCleanupPass } from "@/server/compaction/cleanup/pass";
import { startPayloadRestore } from "@/server/compaction/restore/service";
import { armPolicyOn, shellMetadata } from "@/server/compaction/test-support";
import { withDatabase } from "@/server/db/pg/url";
import { listBackups } from "@/server/maintenance/backups/catalog";
import { createBackup } from "@/server/maintenance/backups/create";
import { backupPath } from "@/server/maintenance/backups/names";
import { createLogger } from "@/server/log";
import { createMigratedRuntime, openRuntime, type OpenRuntime } from "@/server/runtime";

const MIB = 1024 * 1024;
const ROW_CHARS = 256 * 1024;
const TARGET_ROWS = 160;
const TARGET = "target";
const OLD = "2024-01-02T10:00:00Z";
const PG_DB = "bench_payload_restore";

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] && !process.argv[i + 1]!.startsWith("--") ? process.argv[i + 1]! : fallback;
}
const flag = (name: string) => process.argv.includes(`--${name}`);
const mib = (bytes: number) => Number((bytes / MIB).toFixed(1));
const log = (line: string) => process.stderr.write(`${line}\n`);

type Engine = "sqlite" | "postgres";
type Setup = { engine: Engine; env: Record<string, string> };

async function runtimeOf(setup: Setup): Promise<OpenRuntime> {
  const rt = openRuntime(await createMigratedRuntime({ env: setup.env, log: createLogger({ level: "silent" }) }));
  if (!rt) throw new Error("the database did not open");
  return rt;
}

/** Rows in a fixed pseudo-random order: the task's 160 among the rest. */
function* rowsToWrite(totalRows: number): Generator<{ taskId: string; index: number }> {
  const slots = Array.from({ length: totalRows }, (_, i) => i);
  let state = 29;
  const rand = () => {
    // mulberry32
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  for (let i = slots.length - 1; i > 0; i -= 1) {
    const j = Math.floor(rand() * (i + 1));
    [slots[i], slots[j]] = [slots[j]!, slots[i]!];
  }
  for (const slot of slots) {
    if (slot < TARGET_ROWS) yield { taskId: TARGET, index: slot };
    else yield { taskId: `bulk-${slot % 40}`, index: slot };
  }
}

/** The workspace: --gb GiB of payloads, the old task and 40 recent ones (a pass leaves those alone). */
async function generate(rt: OpenRuntime, gib: number): Promise<{ rows: number; seconds: number }> {
  const started = performance.now();
  const totalRows = Math.max(TARGET_ROWS * 2, Math.round((gib * 1024 * MIB) / ROW_CHARS));
  const recent = new Date().toISOString();
  const tasks = [TARGET, ...Array.from({ length: 40 }, (_, i) => `bulk-${i}`)];
  const stamp = (id: string) => (id === TARGET ? OLD : recent);
  const payload = () => crypto.randomBytes((ROW_CHARS * 3) / 4).toString("base64");
  if (rt.handle) {
    const { sqlite } = rt.handle;
    const insertTask = sqlite.prepare("insert into tasks (id, title, state, created_at, created_at_ms, updated_at, updated_at_ms) values (?, 't', 'COMPLETED', ?, ?, ?, ?)");
    const insertSession = sqlite.prepare(
      "insert into task_sessions (id, task_id, state, started_at, started_at_ms, updated_at, updated_at_ms, completed_at, completed_at_ms) values (?, ?, 'COMPLETED', ?, ?, ?, ?, ?, ?)",
    );
    const insertTurn = sqlite.prepare("insert into turns (id, session_id, started_at, started_at_ms, completed_at, completed_at_ms) values (?, ?, ?, ?, ?, ?)");
    const insertMessage = sqlite.prepare(
      `insert into messages (id, session_id, turn_id, author_type, type, content, metadata, tool_call_id, created_at, created_at_ms, updated_at, updated_at_ms)
       values (?, ?, ?, 'agent', 'tool_execute', 'tool', ?, ?, ?, ?, ?, ?)`,
    );
    sqlite.transaction(() => {
      for (const id of tasks) {
        const at = stamp(id);
        const ms = Date.parse(at);
        insertTask.run(id, at, ms, at, ms);
        insertSession.run(`${id}-s`, id, at, ms, at, ms, at, ms);
        insertTurn.run(`${id}-u`, `${id}-s`, at, ms, at, ms);
      }
    })();
    let batch: Array<{ taskId: string; index: number }> = [];
    const flush = sqlite.transaction((rows: typeof batch) => {
      for (const { taskId, index } of rows) {
        const at = stamp(taskId);
        const ms = Date.parse(at);
        insertMessage.run(`${taskId}-m${index}`, `${taskId}-s`, `${taskId}-u`, shellMetadata(`c${index}`, payload()), `c${index}`, at, ms, at, ms);
      }
    });
    let written = 0;
    for (const row of rowsToWrite(totalRows)) {
      batch.push(row);
      if (batch.length === 200) {
        flush(batch);
        written += batch.length;
        batch = [];
        if (written % 2000 === 0) log(`generated ${written}/${totalRows} rows`);
      }
    }
    flush(batch);
    sqlite.pragma("wal_checkpoint(TRUNCATE)");
  } else {
    const db = rt.postgres!;
    for (const id of tasks) {
      const at = stamp(id);
      const ms = Date.parse(at);
      await db.run("insert into tasks (id, title, state, created_at, created_at_ms, updated_at, updated_at_ms) values ($1, 't', 'COMPLETED', $2, $3, $2, $3)", [id, at, ms]);
      await db.run(
        "insert into task_sessions (id, task_id, state, started_at, started_at_ms, updated_at, updated_at_ms, completed_at, completed_at_ms) values ($1, $2, 'COMPLETED', $3, $4, $3, $4, $3, $4)",
        [`${id}-s`, id, at, ms],
      );
      await db.run("insert into turns (id, session_id, started_at, started_at_ms, completed_at, completed_at_ms) values ($1, $2, $3, $4, $3, $4)", [`${id}-u`, `${id}-s`, at, ms]);
    }
    let written = 0;
    let batch: Array<{ taskId: string; index: number }> = [];
    // 200 rows per transaction, as on SQLite (one commit per row would make seeding the slow part).
    const flush = (rows: typeof batch) =>
      db.transaction(async () => {
        for (const { taskId, index } of rows) {
          const at = stamp(taskId);
          const ms = Date.parse(at);
          await db.run(
            `insert into messages (id, session_id, turn_id, author_type, type, content, metadata, tool_call_id, created_at, created_at_ms, updated_at, updated_at_ms)
             values ($1, $2, $3, 'agent', 'tool_execute', 'tool', $4, $5, $6, $7, $6, $7)`,
            [`${taskId}-m${index}`, `${taskId}-s`, `${taskId}-u`, shellMetadata(`c${index}`, payload()), `c${index}`, at, ms],
          );
        }
      });
    for (const row of rowsToWrite(totalRows)) {
      batch.push(row);
      if (batch.length === 200) {
        await flush(batch);
        written += batch.length;
        batch = [];
        if (written % 2000 === 0) log(`generated ${written}/${totalRows} rows`);
      }
    }
    await flush(batch);
  }
  return { rows: totalRows, seconds: Number(((performance.now() - started) / 1000).toFixed(1)) };
}

/** The product's backup, then a real pass compacting the old task; returns the backup's file. */
async function backUpAndCompact(rt: OpenRuntime, options: { backup: boolean }): Promise<string> {
  if (options.backup) {
    log("backing up (the product's backup: snapshot, integrity check, hash)...");
    await createBackup({ store: rt.stores.maintenance, dbFile: rt.dbFile, clock: systemClock, label: "manual", guard: rt.guard, log: rt.log, pinned: [] });
  }
  const [newest] = await listBackups({ dbFile: rt.dbFile });
  if (!newest) throw new Error("no backup");
  await armPolicyOn(rt.stores.compaction, { value: 1, unit: "weeks" }, Date.now());
  for (;;) {
    const pass = await runCleanupPass({ store: rt.stores.compaction, clock: systemClock, operationId: `bench-${Date.now()}`, wait: async () => {} });
    if (pass.reason === "complete") break;
  }
  return backupPath(rt.dbFile, newest.name);
}

/** Peak VmHWM (KiB) of this process's child processes (pg_restore), sampled. */
function sampleChildren(): { stop(): number } {
  let peakKb = 0;
  const sample = () => {
    for (const entry of fs.readdirSync("/proc")) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const status = fs.readFileSync(`/proc/${entry}/status`, "utf8");
        if (!new RegExp(`^PPid:\\s+${process.pid}$`, "m").test(status)) continue;
        const hwm = /^VmHWM:\s+(\d+) kB$/m.exec(status);
        if (hwm) peakKb = Math.max(peakKb, Number(hwm[1]));
      } catch {
        // gone meanwhile
      }
    }
  };
  const timer = setInterval(sample, 50);
  return {
    stop() {
      clearInterval(timer);
      sample();
      return peakKb;
    },
  };
}

type ChildReport = { maxRssMiB: number; toolPeakMiB: number; seconds: number; detail: Record<string, unknown> };

async function child(kind: string, setup: Setup, backupFile: string): Promise<void> {
  const started = performance.now();
  const tools = sampleChildren();
  const detail: Record<string, unknown> = {};
  if (kind === "idle") {
    const rt = await runtimeOf(setup);
    detail.tasks = (await rt.stores.restores.taskExists(TARGET)) ? 1 : 0;
    await rt.stop();
  } else if (kind === "restore") {
    const rt = await runtimeOf(setup);
    // Phases from the bus: the backup's check and the plan come before the first commit.
    let firstCommit: number | null = null;
    let lastCommit = 0;
    rt.bus.subscribe((event) => {
      if (event.type !== "messages_changed") return;
      firstCommit ??= performance.now();
      lastCommit = performance.now();
    });
    const { operationId, done } = await startPayloadRestore(rt, { taskId: TARGET, body: { hold: false }, actor: "cli" });
    await done;
    detail.untilFirstCommitSeconds = firstCommit === null ? null : Number(((firstCommit - started) / 1000).toFixed(1));
    detail.batchesSeconds = firstCommit === null ? null : Number(((lastCommit - firstCommit) / 1000).toFixed(1));
    const record = await rt.stores.restores.readRecord(operationId);
    Object.assign(detail, { state: record?.state, restoredMessages: Number(record?.restoredMessages), restoredBytes: Number(record?.restoredBytes), errorCode: record?.errorCode });
    await rt.stop();
  } else if (setup.engine === "sqlite") {
    const db = new Database(backupFile, { readonly: true });
    const rows = db.prepare("select id, metadata from messages").all() as Array<{ id: string; metadata: string }>;
    detail.rows = rows.length;
    detail.taskRows = rows.filter((row) => row.id.startsWith(`${TARGET}-`)).length;
    db.close();
  } else {
    // The whole table's COPY stream held in memory (as its chunks: one
    // Buffer.concat would double the peak, and a string of it is past V8's
    // limit), then the task's rows counted line by line.
    const chunks = await new Promise<Buffer[]>((resolve, reject) => {
      const proc = spawn("pg_restore", ["--data-only", "--schema=public", "--table=messages", "--file=-", backupFile], { stdio: ["ignore", "pipe", "inherit"] });
      const held: Buffer[] = [];
      proc.stdout.on("data", (chunk: Buffer) => held.push(chunk));
      proc.once("error", reject);
      proc.once("close", (code) => (code === 0 ? resolve(held) : reject(new Error(`pg_restore exited ${code}`))));
    });
    detail.archiveDataMiB = mib(chunks.reduce((sum, chunk) => sum + chunk.length, 0));
    const needle = Buffer.from(`\t${TARGET}-m`);
    let taskRows = 0;
    let carry = Buffer.alloc(0);
    for (const chunk of chunks) {
      let text = carry.length > 0 ? Buffer.concat([carry, chunk]) : chunk;
      for (let end = text.indexOf(0x0a); end !== -1; end = text.indexOf(0x0a)) {
        if (text.subarray(0, end).includes(needle)) taskRows += 1;
        text = text.subarray(end + 1);
      }
      carry = Buffer.from(text);
    }
    detail.taskRows = taskRows;
  }
  const report: ChildReport = { maxRssMiB: mib(process.resourceUsage().maxRSS * 1024), toolPeakMiB: mib(tools.stop() * 1024), seconds: Number(((performance.now() - started) / 1000).toFixed(1)), detail };
  process.stdout.write(`${JSON.stringify(report)}\n`);
}

function runChild(kind: string, setup: Setup, backupFile: string): Promise<ChildReport> {
  return new Promise((resolve, reject) => {
    const proc = spawn(
      process.execPath,
      ["--max-old-space-size=8192", "--import", "tsx", "--conditions=react-server", process.argv[1]!, "--child", kind, "--engine", setup.engine, "--backup-file", backupFile, "--env", JSON.stringify(setup.env)],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    let out = "";
    proc.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    proc.on("exit", (code) => {
      const line = out.trim().split("\n").pop() ?? "";
      if (code === 0 && line.startsWith("{")) resolve(JSON.parse(line) as ChildReport);
      else reject(new Error(`${kind} child exited ${code}: ${out}`));
    });
  });
}

async function pgSetup(dir: string, reuse: boolean): Promise<{ setup: Setup; fresh: boolean }> {
  const server = process.env.TEST_POSTGRES_URL;
  if (!server) throw new Error("--engine postgres needs TEST_POSTGRES_URL");
  const admin = new pg.Client({ connectionString: server });
  await admin.connect();
  let fresh = true;
  try {
    const exists = (await admin.query("select 1 as hit from pg_database where datname = $1", [PG_DB])).rowCount !== 0;
    if (exists && reuse && fs.existsSync(path.join(dir, "backups"))) fresh = false;
    else {
      await admin.query(`drop database if exists ${PG_DB} with (force)`);
      await admin.query(`create database ${PG_DB}`);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  } finally {
    await admin.end();
  }
  fs.mkdirSync(dir, { recursive: true });
  return { setup: { engine: "postgres", env: { DATABASE_URL: withDatabase(server, PG_DB), DATA_DIR: dir } }, fresh };
}

async function main(): Promise<void> {
  const engine = arg("engine", "sqlite") as Engine;
  if (process.argv.includes("--child")) {
    await child(arg("child", ""), { engine, env: JSON.parse(arg("env", "{}")) as Record<string, string> }, arg("backup-file", ""));
    return;
  }
  const gib = Number(arg("gb", "2"));
  const dir = arg("dir", `/tmp/bench-payload-restore-${engine}`);
  const reuse = flag("reuse");
  let setup: Setup;
  let fresh: boolean;
  if (engine === "postgres") ({ setup, fresh } = await pgSetup(dir, reuse));
  else {
    const file = path.join(dir, "workspace.db");
    fresh = !(reuse && fs.existsSync(file));
    if (fresh) fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    setup = { engine, env: { DATABASE_URL: `file:${file}` } };
  }
  const rt = await runtimeOf(setup);
  let generated = null;
  if (fresh) {
    log(`generating ${gib} GiB...`);
    generated = await generate(rt, gib);
  }
  const backupFile = await backUpAndCompact(rt, { backup: fresh });
  await rt.stop();
  const backupBytes = fs.statSync(backupFile).size;
  log(`backup ${path.basename(backupFile)}: ${mib(backupBytes)} MiB; measuring in child processes...`);

  const idle = await runChild("idle", setup, backupFile);
  const restore = await runChild("restore", setup, backupFile);
  const baseline = await runChild("baseline", setup, backupFile);
  const result = {
    bench: "payload-restore-memory",
    engine,
    generated,
    backup: { file: path.basename(backupFile), mib: mib(backupBytes) },
    task: { rows: TARGET_ROWS, payloadMiB: mib(TARGET_ROWS * ROW_CHARS) },
    idle,
    restore,
    baseline,
    limitMiB: 300,
    ok: restore.maxRssMiB < 300 && restore.toolPeakMiB < 300 && restore.detail.restoredMessages === TARGET_ROWS,
  };
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  process.stdout.write(
    `payload-restore-memory [${engine}]: restored ${String(restore.detail.restoredMessages)} rows (${result.task.payloadMiB} MiB) from a ${result.backup.mib} MiB backup in ${restore.seconds} s at peak RSS ${restore.maxRssMiB} MiB` +
      `${engine === "postgres" ? ` (pg_restore ${restore.toolPeakMiB} MiB)` : ""}; idle runtime ${idle.maxRssMiB} MiB; naive whole-table read ${baseline.maxRssMiB} MiB in ${baseline.seconds} s; limit 300 MiB: ${result.ok ? "met" : "NOT met"}\n`,
  );
}

void main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
