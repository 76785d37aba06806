// Admission cleanup on a real long thread: bytes read and time of the
// admission that starts run N (it reclaims run N-1's duration leaf), at
// runs 10, 100 and 1,000 of one thread built run by run through the thread
// service (createThread / startRun with the service's admission hook, the
// same code POST /threads/{id}/runs runs; no padding), on SQLite and on
// PostgreSQL.
//
// Bytes read are measured, never estimated:
// - SQLite: the process's read-syscall byte counter (`rchar` in
//   /proc/self/io) around the admission, after `PRAGMA shrink_memory` empties
//   the connection's page cache, so every page admission touches is read
//   from the database or WAL file once (mmap is off, so each page is one
//   pread of page_size bytes). The connection is the runtime's own.
// - PostgreSQL: shared-buffer blocks (hits + reads: heap, index and TOAST)
//   of every statement admission sends, from EXPLAIN (ANALYZE, BUFFERS) of
//   that statement run first in a transaction that is rolled back (so it
//   sees exactly the state the real statement then sees), times the block
//   size. Planning buffers (catalog) are left out. The admission hook is the
//   service's own code (admissionHook) on a store whose connection does
//   this; pg_statio counters would also catch the saver pool's sessions,
//   whose statistics arrive up to seconds late.
// Baseline in the same run, on the same thread at the same points: the
// parent lookup admission ran before this change (the channel_versions
// digest read from the parent's metadata, which both engines store after or
// beside the checkpoint body), read-only.
//
//   npx tsx --conditions=react-server scripts/bench/checkpoint-admission.ts [--engines sqlite,postgres] [--runs 1000] [--mode full|delta]
//     [--background-threads 0] [--background-runs 10] [--payload-bytes 64] [--points 10,100,1000] [--explain-nodes]
// PostgreSQL needs TEST_POSTGRES_URL (a fresh database is created and dropped).
// Prints one JSON object per engine and point, then one summary line.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { createEmptyPgDatabase } from "@/server/db/pg/test-db";
import { createLogger } from "@/server/log";
import { createMigratedRuntime, openRuntime, type OpenRuntime } from "@/server/runtime";
import { threadService } from "@/server/checkpoints/service";
import { startRun, type RunDeps } from "@/server/checkpoints/runs";
import { createThread } from "@/server/checkpoints/threads";
import { admissionHook } from "@/server/checkpoints/cleanup/admission-cleanup";
import { createPgCheckpointStore } from "@/server/checkpoints/pg-store";
import type { CheckpointStore } from "@/server/checkpoints/store";
import type { PgDb } from "@/server/db/pg/pg-db";

type Engine = "sqlite" | "postgres";

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : fallback;
}

/** Bytes the process has passed to read syscalls so far (Linux). */
function rchar(): number {
  const line = fs.readFileSync("/proc/self/io", "utf8").split("\n").find((l) => l.startsWith("rchar:"));
  if (!line) throw new Error("/proc/self/io has no rchar");
  return Number(line.split(":")[1]);
}

type Meter = { label: string; before(): void; after(): number; /** Time of the statements alone, when measuring adds work around them. */ statementMs?(): number };

function sqliteMeter(rt: OpenRuntime): Meter {
  const sqlite = rt.handle!.sqlite;
  if (Number(sqlite.pragma("mmap_size", { simple: true })) !== 0) throw new Error("mmap is on: page reads would not be syscalls");
  let start = 0;
  return {
    label: "rchar bytes after PRAGMA shrink_memory",
    before: () => {
      sqlite.pragma("shrink_memory");
      start = rchar();
    },
    after: () => rchar() - start,
  };
}

type PlanNode = {
  "Node Type"?: string;
  "Index Name"?: string;
  "Relation Name"?: string;
  "Shared Hit Blocks"?: number;
  "Shared Read Blocks"?: number;
  Plans?: PlanNode[];
};

const blocksOf = (node: PlanNode) => (node["Shared Hit Blocks"] ?? 0) + (node["Shared Read Blocks"] ?? 0);

/** Each plan node's own blocks (its count less its children's), as "Node Type index-or-table: blocks". */
function nodeBlocks(node: PlanNode, out: string[] = []): string[] {
  const own = blocksOf(node) - (node.Plans ?? []).reduce((sum, child) => sum + blocksOf(child), 0);
  const on = node["Index Name"] ?? node["Relation Name"];
  if (own > 0) out.push(`${node["Node Type"]}${on ? ` ${on}` : ""}: ${own}`);
  for (const child of node.Plans ?? []) nodeBlocks(child, out);
  return out;
}

/** Per statement of the last measured admission (--explain-nodes): its blocks and which plan nodes touched them. */
let explained: Array<{ statement: string; blocks: number; nodes: string[] }> = [];
const explainNodes = process.argv.includes("--explain-nodes");

/** Shared blocks one statement touches, from its EXPLAIN (ANALYZE, BUFFERS) in a rolled-back transaction. */
class Explained extends Error {
  constructor(readonly blocks: number) {
    super("explained");
  }
}

async function explainedBlocks(db: PgDb, sql: string, params: readonly unknown[] | undefined): Promise<number> {
  try {
    // A transaction (or a savepoint of the caller's) that always rolls back: EXPLAIN ANALYZE runs the statement.
    await db.transaction(async () => {
      const [row] = await db.query<{ "QUERY PLAN": unknown }>(`explain (analyze, buffers, format json) ${sql}`, params);
      const raw = row!["QUERY PLAN"];
      const plan = (typeof raw === "string" ? JSON.parse(raw) : raw) as Array<{ Plan: PlanNode }>;
      // The top node's counts include its children's (and the subqueries').
      const blocks = blocksOf(plan[0]!.Plan);
      if (explainNodes) explained.push({ statement: sql.replace(/\s+/g, " ").slice(0, 60), blocks, nodes: nodeBlocks(plan[0]!.Plan) });
      throw new Explained(blocks);
    });
  } catch (error) {
    if (error instanceof Explained) return error.blocks;
    throw error;
  }
  throw new Error("unreachable");
}

/** A connection view that first measures every statement it is given, then runs it. */
function measuringDb(db: PgDb): { db: PgDb; blocks: { n: number; ms: number } } {
  const blocks = { n: 0, ms: 0 };
  // The real statement's own time (the EXPLAIN before it is not admission's).
  const timed = async <T>(fn: () => Promise<T>): Promise<T> => {
    const t0 = performance.now();
    try {
      return await fn();
    } finally {
      blocks.ms += performance.now() - t0;
    }
  };
  const measure = async (sql: string, params?: readonly unknown[]) => {
    blocks.n += await explainedBlocks(db, sql, params);
  };
  const view: PgDb = {
    ...db,
    query: async <T>(sql: string, params?: readonly unknown[]) => (await measure(sql, params), timed(() => db.query<T>(sql, params))),
    one: async <T>(sql: string, params?: readonly unknown[]) => (await measure(sql, params), timed(() => db.one<T>(sql, params))),
    run: async (sql, params) => (await measure(sql, params), timed(() => db.run(sql, params))),
  };
  return { db: view, blocks };
}

async function pgMeter(rt: OpenRuntime): Promise<{ meter: Meter; store: CheckpointStore }> {
  const db = rt.postgres!;
  const blockSize = Number((await db.one<{ b: string }>(`select current_setting('block_size') as b`))!.b);
  const measured = measuringDb(db);
  let start = 0;
  let startMs = 0;
  return {
    store: createPgCheckpointStore(measured.db),
    meter: {
      label: "shared-buffer block hits + reads per statement (EXPLAIN ANALYZE BUFFERS) x block_size",
      before: () => {
        start = measured.blocks.n;
        startMs = measured.blocks.ms;
        explained = [];
      },
      after: () => (measured.blocks.n - start) * blockSize,
      statementMs: () => measured.blocks.ms - startMs,
    },
  };
}

let legacyBlocks = 0;

/** The parent lookup admission ran before checkpoint_runs: the digest from the parent's metadata. */
async function legacyParentLookup(rt: OpenRuntime, threadId: string, parentId: string): Promise<void> {
  if (rt.handle) {
    rt.handle.sqlite
      .prepare(`SELECT json_extract(CAST(metadata AS TEXT), '$.channel_versions_digest') AS d FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = '' AND checkpoint_id = ?`)
      .get(threadId, parentId);
  } else {
    const sql = `select metadata->>'channel_versions_digest' as d from checkpoints where thread_id = $1 and checkpoint_ns = '' and checkpoint_id = $2`;
    legacyBlocks = await explainedBlocks(rt.postgres!, sql, [threadId, parentId]);
  }
}

type Row = {
  bench: "checkpoint-admission";
  engine: Engine;
  mode: string;
  backgroundThreads: number;
  run: number;
  action: string;
  bytesRead: number;
  admissionMs: number;
  legacyParentLookupBytes: number;
  counter: string;
  /** PostgreSQL with --explain-nodes: each admission statement's blocks by plan node. */
  statements?: typeof explained;
};

async function measureEngine(engine: Engine, runs: number, points: number[], mode: string, background: number, backgroundRuns: number): Promise<Row[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ckpt-admission-bench-"));
  const pgDb = engine === "postgres" ? await createEmptyPgDatabase() : null;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: pgDb ? pgDb.url : `file:${path.join(dir, "bench.db")}`,
    DATA_DIR: dir,
    CHECKPOINT_CHANNEL_MODE: mode,
    CHECKPOINT_AGENT_TOOL_PAYLOAD_BYTES: arg("payload-bytes", "64"),
  };
  const rt = openRuntime(await createMigratedRuntime({ env, log: createLogger({ level: "error" }) }));
  if (!rt) throw new Error(`could not open the ${engine} runtime`);
  try {
    const service = threadService(rt, env);
    const pgMeasured = engine === "postgres" ? await pgMeter(rt) : null;
    const meter = pgMeasured ? pgMeasured.meter : sqliteMeter(rt);
    // PostgreSQL: the service's admission code on the measuring connection.
    const admit = pgMeasured ? admissionHook({ store: pgMeasured.store, cache: rt.checkpoints.runHistory, log: rt.log }) : service.admit!;
    const rows: Row[] = [];
    let measureRun = 0;
    let current: Omit<Row, "legacyParentLookupBytes"> | null = null;
    // The service's own admission hook, metered when it admits a measured run.
    const deps: RunDeps = {
      ...service,
      admit: async (request) => {
        if (measureRun === 0) return service.admit!(request);
        const head = await service.store!.admissionHead(request.threadId);
        meter.before();
        const t0 = performance.now();
        const carried = await admit(request);
        const wall = performance.now() - t0;
        const bytes = meter.after();
        const ms = meter.statementMs ? meter.statementMs() : wall;
        const reclaimed = head && !(await service.store!.checkpointExists(request.threadId, head.id));
        current = { bench: "checkpoint-admission", engine, mode, backgroundThreads: background, run: measureRun, action: reclaimed ? "deleted" : "noop", bytesRead: bytes, admissionMs: +ms.toFixed(3), counter: meter.label };
        if (explainNodes && engine === "postgres") current.statements = [...explained];
        return carried;
      },
    };
    // Other threads first (real runs too): B-tree depth follows the whole
    // table, so without them the first runs of the measured thread would
    // sit in single-page indexes that any database of a few threads outgrows.
    for (let t = 0; t < background; t += 1) {
      const other = await createThread(deps);
      for (let r = 0; r < backgroundRuns; r += 1) await startRun(deps, { threadId: other.threadId, content: `background ${t}.${r}` });
    }
    const { threadId } = await createThread(deps);
    for (let run = 1; run <= runs; run += 1) {
      measureRun = points.includes(run) ? run : 0;
      const result = await startRun(deps, { threadId, content: `question ${run}` });
      if (result.status !== "success") throw new Error(`run ${run} ended ${result.status}`);
      if (measureRun && current) {
        // The baseline, read-only, on the same thread: the parent of the leaf this run wrote.
        const head = (await service.store!.admissionHead(threadId))!;
        let legacy: number;
        if (rt.handle) {
          meter.before();
          await legacyParentLookup(rt, threadId, head.parentId!);
          legacy = meter.after();
        } else {
          await legacyParentLookup(rt, threadId, head.parentId!);
          legacy = legacyBlocks * Number((await rt.postgres!.one<{ b: string }>(`select current_setting('block_size') as b`))!.b);
        }
        const row: Row = { ...(current as Omit<Row, "legacyParentLookupBytes">), legacyParentLookupBytes: legacy };
        rows.push(row);
        console.log(JSON.stringify(row));
        current = null;
      }
      if (run % 100 === 0) process.stderr.write(`${engine}: ${run} runs\n`);
    }
    return rows;
  } finally {
    await rt.stop();
    await pgDb?.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const runs = Number(arg("runs", "1000"));
  const mode = arg("mode", "full");
  const engines = arg("engines", process.env.TEST_POSTGRES_URL ? "sqlite,postgres" : "sqlite").split(",") as Engine[];
  const background = Number(arg("background-threads", "0"));
  const backgroundRuns = Number(arg("background-runs", "10"));
  const points = arg("points", "10,100,1000").split(",").map(Number).filter((p) => p <= runs);
  if (!points.includes(runs)) points.push(runs);
  const summary: string[] = [];
  for (const engine of engines) {
    const rows = await measureEngine(engine, runs, points, mode, background, backgroundRuns);
    const first = rows[0]!;
    const last = rows[rows.length - 1]!;
    summary.push(
      `${engine}: ${rows.map((r) => `run ${r.run} ${r.bytesRead} B ${r.admissionMs} ms`).join(", ")} (bytes ${(last.bytesRead / first.bytesRead).toFixed(2)}x run ${first.run}; ` +
        `old parent lookup ${first.legacyParentLookupBytes} -> ${last.legacyParentLookupBytes} B, ${(last.legacyParentLookupBytes / first.legacyParentLookupBytes).toFixed(1)}x)`,
    );
  }
  const base = background > 0 ? `, beside ${background} threads of ${backgroundRuns} runs` : ", alone in its database";
  console.log(`checkpoint-admission (${mode} mode, ${runs} real runs${base}): ${summary.join("; ")}`);
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
