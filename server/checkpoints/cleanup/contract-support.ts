// Contract-suite support: builders that make real chains through the agent
// and run API (never hand-written rows), and the four verifications every
// deletion shape must pass: latest resume, explicit checkpointId resume,
// branch from an older visible turn, orphan writes.
import type Database from "better-sqlite3";
import type { EngineDb, EngineName } from "@/server/engines-test-support";
import { isAppError } from "@/server/errors";
import { createCheckpointAccessor } from "../accessor";
import { openPgCheckpoints, startPgSaver } from "../pg-saver";
import type { CheckpointAccessor } from "../accessor";
import { findCheckpointBeforeMessage } from "../lineage";
import type { ModeConfig } from "../mode";
import type { CheckpointStore } from "../store";
import { startRun, type RunDeps } from "../runs";
import { createCheckpointTestEnv, DELTA, FULL, sequentialIds, testRunDeps, type CheckpointTestEnv } from "../test-support";
import { branch, createThread, regenerate } from "../threads";

export { DELTA, FULL };
export const MODES = [
  ["full", FULL],
  ["delta", DELTA],
] as const;

export type Harness = {
  engine: EngineName;
  env?: CheckpointTestEnv;
  config: ModeConfig;
  /** SQLite only (throws on PostgreSQL): tests that reshape rows by hand use `run`. */
  sqlite: Database.Database;
  /** The saver's writes table: `writes` (SqliteSaver) or `checkpoint_writes` (PostgresSaver). */
  writesTable: "writes" | "checkpoint_writes";
  /** Runs one statement written for both engines (`?` placeholders) on the harness's database. */
  run(sql: string, params?: readonly unknown[]): Promise<void>;
  /** Rows of one read written for both engines (`?` placeholders) on the harness's database. */
  all<T = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<T[]>;
  store: CheckpointStore;
  accessor: CheckpointAccessor;
  deps: RunDeps;
  newId: () => string;
  /** Re-opens the file in another mode (full -> delta migration), same ids. */
  reopen(config: ModeConfig): void;
  close(): void;
};

export function openHarness(config: ModeConfig): Harness {
  const env = createCheckpointTestEnv();
  const newId = sequentialIds();
  const first = env.open(config);
  const h: Harness = {
    engine: "sqlite",
    env,
    config,
    sqlite: first.sqlite,
    writesTable: "writes",
    run: async (sql, params = []) => {
      h.sqlite.prepare(sql).run(...params);
    },
    all: async <T>(sql: string, params: readonly unknown[] = []) => h.sqlite.prepare(sql).all(...params) as T[],
    store: first.store,
    accessor: first.accessor,
    deps: { ...testRunDeps(first.accessor, newId), store: first.store },
    newId,
    reopen(next) {
      const o = env.open(next);
      h.config = next;
      h.sqlite = o.sqlite;
      h.store = o.store;
      h.accessor = o.accessor;
      h.deps = { ...testRunDeps(o.accessor, newId), locks: h.deps.locks, clock: h.deps.clock, store: o.store };
    },
    close: () => env.close(),
  };
  return h;
}

/**
 * A harness on the engine of `db` (describeEachEngine): SQLite as
 * openHarness, PostgreSQL through PostgresSaver and the store on the test
 * database's one pool (the saver's tables set up first), as the runtime
 * wires them.
 */
export async function openEngineHarness(db: EngineDb, config: ModeConfig): Promise<Harness> {
  if (!db.pg) return openHarness(config);
  const pool = db.pg.db;
  const handle = startPgSaver({ pool: pool.pool });
  await handle.ready();
  const open = (c: ModeConfig) => {
    const { saver, store } = openPgCheckpoints({ handle, db: pool, mode: c.mode });
    return { store, accessor: createCheckpointAccessor({ saver, config: c }) };
  };
  const newId = sequentialIds();
  const first = open(config);
  const h: Harness = {
    engine: "postgres",
    config,
    get sqlite(): Database.Database {
      throw new Error("this harness runs on PostgreSQL");
    },
    writesTable: "checkpoint_writes",
    run: async (sql, params = []) => {
      let n = 0;
      await pool.run(
        sql.replace(/\?/g, () => `$${++n}`),
        params,
      );
    },
    all: <T>(sql: string, params: readonly unknown[] = []) => {
      let n = 0;
      return pool.query<T>(
        sql.replace(/\?/g, () => `$${++n}`),
        params,
      );
    },
    store: first.store,
    accessor: first.accessor,
    deps: { ...testRunDeps(first.accessor, newId), store: first.store },
    newId,
    reopen(next) {
      const o = open(next);
      h.config = next;
      h.store = o.store;
      h.accessor = o.accessor;
      h.deps = { ...testRunDeps(o.accessor, newId), locks: h.deps.locks, clock: h.deps.clock, store: o.store };
    },
    // The pool belongs to the test database (closed with it).
    close: () => undefined,
  };
  return h;
}

export async function messageIds(h: Harness, threadId: string, checkpointId?: string): Promise<string[]> {
  const s = await h.accessor.getState(threadId, checkpointId);
  return (s?.values.messages ?? []).map((m) => String(m.id));
}

/** Assistant replies (not tool calls) of the head conversation, oldest first. */
export async function replies(h: Harness, threadId: string): Promise<string[]> {
  const s = await h.accessor.getState(threadId);
  return (s?.values.messages ?? [])
    .filter((m) => m.getType() === "ai" && ((m as { tool_calls?: unknown[] }).tool_calls?.length ?? 0) === 0)
    .map((m) => String(m.id));
}

/** runs: the handles the run API returned; leaves: each run's duration-only leaf; headId: the newest leaf. */
export type Shape = { threadId: string; runs: string[]; leaves: string[]; headId: string };

async function newestId(h: Harness, threadId: string): Promise<string> {
  const head = await h.accessor.rawTuple(threadId);
  return String(head!.config.configurable?.checkpoint_id);
}

/** A thread with `turns` successful runs (each leaves a duration-only checkpoint). */
export async function buildLinear(h: Harness, turns = 3): Promise<Shape> {
  const { threadId } = await createThread(h.deps);
  const runs: string[] = [];
  const leaves: string[] = [];
  for (let i = 0; i < turns; i += 1) {
    const r = await startRun(h.deps, { threadId, content: `question ${i + 1}` });
    if (r.status !== "success" || !r.checkpointId) throw new Error(`builder run ${i} failed`);
    runs.push(r.checkpointId);
    leaves.push(await newestId(h, threadId));
  }
  return { threadId, runs, leaves, headId: leaves[leaves.length - 1]! };
}

/**
 * A leaf sibling branch: three turns, then turn 2 regenerated in full mode,
 * so the abandoned turn-2/3 path ends in a childless leaf (the old run's
 * duration checkpoint). Delta processes never fork, so in delta mode the
 * shape only exists as history from before a full -> delta migration: the
 * thread is built in full mode and then reopened (and run) in delta mode.
 */
export async function buildLeafSibling(h: Harness): Promise<Shape & { siblingLeafId: string }> {
  const target = h.config;
  if (target.mode === "delta") h.reopen(FULL);
  const shape = await buildLinear(h, 3);
  const [, second] = await replies(h, shape.threadId);
  const regenerated = await regenerate(h.deps, shape.threadId, second!);
  if (regenerated.status !== "success") throw new Error("builder regenerate failed");
  if (target.mode === "delta") {
    h.reopen(target);
    const r = await startRun(h.deps, { threadId: shape.threadId, content: "after migration" });
    if (r.status !== "success") throw new Error("builder delta run failed");
    return { ...shape, headId: await newestId(h, shape.threadId), siblingLeafId: shape.leaves[2]! };
  }
  return { ...shape, headId: await newestId(h, shape.threadId), siblingLeafId: shape.leaves[2]! };
}

export type Outcome = "ok" | string;
/**
 * orphans: writes rows whose checkpoint is gone; blobs (PostgreSQL; zeros on
 * SQLite, which keeps values inside checkpoint rows): (channel, version)
 * pairs a surviving checkpoint names without a checkpoint_blobs row
 * (missing: corrupt state) and blob rows no survivor names (unreachable).
 */
export type FourWays = { latest: Outcome; explicit: Outcome; branch: Outcome; orphans: number; blobs: { missing: number; unreachable: number } };

/** Blob reachability of one thread on the harness's database (see FourWays). */
export async function harnessBlobs(h: Harness, threadId: string): Promise<{ missing: number; unreachable: number }> {
  if (h.engine !== "postgres") return { missing: 0, unreachable: 0 };
  const [row] = await h.all<{ missing: number; unreachable: number }>(
    `with named as (
       select distinct c.checkpoint_ns as ns, e.key as channel, e.value as version
       from checkpoints c, jsonb_each_text(c.checkpoint->'channel_versions') e where c.thread_id = ?)
     select
       (select count(*)::int from named n where not exists (select 1 from checkpoint_blobs b
          where b.thread_id = ? and b.checkpoint_ns = n.ns and b.channel = n.channel and b.version = n.version)) as missing,
       (select count(*)::int from checkpoint_blobs b where b.thread_id = ? and not exists (select 1 from named n
          where n.ns = b.checkpoint_ns and n.channel = b.channel and n.version = b.version)) as unreachable`,
    [threadId, threadId, threadId],
  );
  return { missing: Number(row!.missing), unreachable: Number(row!.unreachable) };
}

async function outcome(fn: () => Promise<boolean>): Promise<Outcome> {
  try {
    return (await fn()) ? "ok" : "wrong_state";
  } catch (error) {
    if (isAppError(error)) return error.code;
    throw error;
  }
}

function extends4(before: string[], after: string[]): boolean {
  return after.length === before.length + 4 && before.every((id, i) => after[i] === id);
}

export type Expect = {
  /** A checkpoint id a client holds (the run API handed it out). */
  explicitId: string;
  /** The conversation before the deletion, and an older assistant reply in it. */
  conversation: string[];
  olderReplyId: string;
};

/** What to check after a deletion, captured before it. */
export async function captureExpect(h: Harness, threadId: string, explicitId: string): Promise<Expect> {
  const [olderReplyId] = await replies(h, threadId);
  return { explicitId, conversation: await messageIds(h, threadId), olderReplyId: olderReplyId! };
}

/**
 * (d) orphan writes and PostgreSQL blobs, (c) branch from an older visible turn (and the lineage
 * walk it takes), (a) resume from the head, (b) resume from `explicitId` —
 * in that order, each checked against the conversation captured before.
 */
export async function verifyFourWays(h: Harness, threadId: string, expect: Expect): Promise<FourWays> {
  const { explicitId, conversation, olderReplyId } = expect;
  const orphans = await h.store.countOrphanWrites(threadId);
  const blobs = await harnessBlobs(h, threadId);
  const branchOutcome = await outcome(async () => {
    const humanAfter = conversation[conversation.indexOf(olderReplyId) + 1];
    if (humanAfter) await findCheckpointBeforeMessage({ accessor: h.accessor, threadId, messageId: humanAfter });
    const made = await branch(h.deps, threadId, olderReplyId);
    const copy = await messageIds(h, made.threadId);
    const through = conversation.slice(0, conversation.indexOf(olderReplyId) + 1);
    return copy.length === through.length && copy.every((id, i) => through[i] === id);
  });
  const latest = await outcome(async () => {
    const before = await messageIds(h, threadId);
    // Nothing of the conversation may have vanished (delta walks can fail silently).
    if (!conversation.every((id, i) => before[i] === id)) return false;
    const r = await startRun(h.deps, { threadId, content: "latest resume" });
    return r.status === "success" && extends4(before, await messageIds(h, threadId));
  });
  const explicit = await outcome(async () => {
    const at = await h.accessor.getState(threadId, explicitId);
    // The run API is the judge: a vanished target must fail the run itself.
    const r = await startRun(h.deps, { threadId, content: "explicit resume", checkpointId: explicitId });
    if (!at) return false;
    const before = at.values.messages.map((m) => String(m.id));
    return r.status === "success" && extends4(before, await messageIds(h, threadId));
  });
  return { latest, explicit, branch: branchOutcome, orphans, blobs };
}

export const ALL_OK: FourWays = { latest: "ok", explicit: "ok", branch: "ok", orphans: 0, blobs: { missing: 0, unreachable: 0 } };
