import type Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { startRun } from "../runs";
import { createSqliteCheckpointStore } from "../sqlite-store";
import { createPgCheckpointStore } from "../pg-store";
import type { PgDb } from "@/server/db/pg/pg-db";
import { wrapSqliteDb } from "@/server/db/sqlite-db";
import { createThread, regenerate } from "../threads";
import { admissionHook, cleanupAtAdmission } from "./admission-cleanup";
import { ALL_OK, buildLinear, captureExpect, FULL, MODES, openEngineHarness, replies, verifyFourWays, type Harness } from "./contract-support";
import { describeEachEngine, type EngineName } from "@/server/engines-test-support";
import type { CheckpointStore } from "../store";
import { createRunHistoryCache, readRunHistory } from "./run-history";
import { blobCount, blobReachability } from "../blob-test-support";
import { loadThreadGraph } from "./thread-graph";
import { maintainThread } from "./maintenance";
import { judgeDeletion } from "./protected-set";
import { DAY_MS, DEFAULT_HANDLE_TTL_DAYS } from "../handles";
import { handlePolicy } from "../runs";
import { advanceClock } from "../test-support";

let h: Harness | null = null;
afterEach(() => {
  h?.close();
  h = null;
});

function withAdmission(harness: Harness, cache = createRunHistoryCache()) {
  harness.deps = { ...harness.deps, admit: admissionHook({ store: harness.store, cache }) };
  return cache;
}

/** A store on a connection view that records every statement execution and its SQL. */
function countingStore(real: Database.Database) {
  const executed: string[] = [];
  const view = {
    transaction: <F extends (...args: never[]) => unknown>(fn: F) => real.transaction(fn),
    prepare(sql: string) {
      const statement = real.prepare(sql);
      return new Proxy(statement, {
        get(target, key) {
          const value = Reflect.get(target, key) as unknown;
          if (typeof value !== "function") return value;
          if (key === "get" || key === "all" || key === "run" || key === "iterate") {
            return (...args: unknown[]) => {
              // The writer queue's own transaction statements are not the verb's.
              if (!/^(begin|commit|rollback|savepoint|release)\b/i.test(sql)) executed.push(sql);
              return (value as (...a: unknown[]) => unknown).apply(target, args);
            };
          }
          return (value as (...a: unknown[]) => unknown).bind(target);
        },
      });
    },
  };
  // No read connection: every statement goes through the view.
  return { store: createSqliteCheckpointStore(wrapSqliteDb({ sqlite: view as unknown as Database.Database, file: real.name }, { reader: false })), executed };
}

/** A PostgreSQL store on a connection view that records every statement it sends. */
function countingPgStore(db: PgDb) {
  const executed: string[] = [];
  const record = <T>(sql: string, fn: () => T) => (executed.push(sql), fn());
  const view: PgDb = {
    ...db,
    query: (sql, params) => record(sql, () => db.query(sql, params)),
    one: (sql, params) => record(sql, () => db.one(sql, params)),
    run: (sql, params) => record(sql, () => db.run(sql, params)),
  };
  return { store: createPgCheckpointStore(view), executed };
}

/** Hand edits of a checkpoint's stored JSON, per saver (SQLite: JSON text; PostgreSQL: jsonb). Parameters: thread, checkpoint. */
function edits(engine: EngineName) {
  return engine === "postgres"
    ? {
        digestOther: "UPDATE checkpoints SET metadata = jsonb_set(metadata, '{channel_versions_digest}', '\"other\"') WHERE thread_id = ? AND checkpoint_id = ?",
        unstamp: "UPDATE checkpoints SET metadata = metadata - 'channel_versions_digest' WHERE thread_id = ? AND checkpoint_id = ?",
        changeNotesVersion: "UPDATE checkpoints SET checkpoint = jsonb_set(checkpoint, '{channel_versions,notes}', '999') WHERE thread_id = ? AND checkpoint_id = ?",
      }
    : {
        digestOther: "UPDATE checkpoints SET metadata = json_set(CAST(metadata AS TEXT), '$.channel_versions_digest', 'other') WHERE thread_id = ? AND checkpoint_id = ?",
        unstamp: "UPDATE checkpoints SET metadata = json_remove(CAST(metadata AS TEXT), '$.channel_versions_digest') WHERE thread_id = ? AND checkpoint_id = ?",
        changeNotesVersion: "UPDATE checkpoints SET checkpoint = json_set(CAST(checkpoint AS TEXT), '$.channel_versions.notes', 999) WHERE thread_id = ? AND checkpoint_id = ?",
      };
}

describeEachEngine("admission cleanup", ({ engine, db }) => describe.each(MODES)("%s mode", (_name, config) => {
  it("[CRC-10] proves identical channel_versions, deletes only the trailing leaf's rows and keeps every blob; the run history stays whole", async () => {
    h = await openEngineHarness(db(), config);
    const shape = await buildLinear(h, 3);
    const leaf = await h.accessor.getState(shape.threadId, shape.headId);
    const parentId = (await loadThreadGraph(h.store, shape.threadId)).nodes.get(shape.headId)!.parentId!;
    const writesBefore = (await h.store.threadTotals(shape.threadId)).writes;
    const blobsBefore = await blobCount(db(), shape.threadId);
    if (h.engine === "postgres") expect(blobsBefore).toBeGreaterThan(0);
    // The proof: the leaf's digest equals the one recorded for its parent.
    const row = (await h.store.admissionHead(shape.threadId))!;
    expect(row.recorded).toMatchObject({ parentId });
    expect(row.recorded!.leafDigest).toBe(row.recorded!.parentDigest);
    // Exactly the leaf's rows go (it has no writes), nothing else, and no blob.
    const before = await h.store.threadTotals(shape.threadId);
    expect(await cleanupAtAdmission({ store: h.store, threadId: shape.threadId, selectors: [] })).toMatchObject({ action: "deleted", leafId: shape.headId, parentId });
    expect(await h.store.threadTotals(shape.threadId)).toMatchObject({ checkpoints: before.checkpoints - 1, writes: before.writes });
    expect(await blobCount(db(), shape.threadId)).toBe(blobsBefore);
    expect(await blobReachability(db(), shape.threadId)).toEqual({ missing: 0, unreachable: 0 });
    withAdmission(h);
    const run = await startRun(h.deps, { threadId: shape.threadId, content: "four" });
    const graph = await loadThreadGraph(h.store, shape.threadId);
    expect(graph.nodes.has(shape.headId)).toBe(false);
    // The parent now carries the run, with exactly the leaf's state.
    expect(graph.children.get(parentId)).toHaveLength(1);
    expect((await h.accessor.getState(shape.threadId, parentId))!.values).toEqual(leaf!.values);
    expect(await h.store.countOrphanWrites(shape.threadId)).toBe(0);
    expect((await h.store.threadTotals(shape.threadId)).writes).toBeGreaterThan(writesBefore);
    // Every run's duration is kept beside the checkpoints, the reclaimed leaf's run included.
    const history = await readRunHistory({ accessor: h.accessor, threadId: shape.threadId, store: h.store });
    expect(history?.source).toBe("runs");
    expect(Object.keys(history!.history.run_durations)).toHaveLength(4);
    expect(run.checkpointId).toBe(graph.nodes.get(graph.headId!)!.parentId);
  });

  it("[CRC-14] no-op on a head that is not a duration leaf, pending writes, changed versions or a missing parent", async () => {
    h = await openEngineHarness(db(), config);
    const failed = await buildLinear(h, 1);
    await startRun(h.deps, { threadId: failed.threadId, content: "x", beforeNode: (n) => { if (n === "reply") throw new Error("x"); } });
    expect(await cleanupAtAdmission({ store: h.store, threadId: failed.threadId, selectors: [] })).toEqual({ action: "noop", reason: "head_not_duration_leaf" });

    const writes = await buildLinear(h, 1);
    await h.accessor.saver.putWrites(h.accessor.runConfig(writes.threadId, writes.headId), [["notes", "pending"]], "task-1");
    expect(await cleanupAtAdmission({ store: h.store, threadId: writes.threadId, selectors: [] })).toEqual({ action: "noop", reason: "pending_writes" });

    // The proof compares the digests recorded when the leaf was written.
    const changed = await buildLinear(h, 1);
    await h.run("UPDATE checkpoint_runs SET leaf_digest = 'other' WHERE thread_id = ? AND leaf_id = ?", [changed.threadId, changed.headId]);
    expect(await cleanupAtAdmission({ store: h.store, threadId: changed.threadId, selectors: [] })).toEqual({ action: "noop", reason: "versions_differ" });
    // A recorded leaf that no longer hangs off the parent it was written on proves nothing.
    const moved = await buildLinear(h, 2);
    await h.run("UPDATE checkpoint_runs SET handle_id = ? WHERE thread_id = ? AND leaf_id = ?", [moved.runs[0]!, moved.threadId, moved.headId]);
    expect(await cleanupAtAdmission({ store: h.store, threadId: moved.threadId, selectors: [] })).toEqual({ action: "noop", reason: "versions_differ" });

    // Leaves written before checkpoint_runs (no row): their metadata is read
    // as before. The digest stamped into metadata decides; rows written
    // before the digest existed compare bodies, and a digest never matches a
    // body (the leaf stays).
    const legacyLeaf = (threadId: string) => h!.run("DELETE FROM checkpoint_runs WHERE thread_id = ?", [threadId]);
    const stampedOther = await buildLinear(h, 1);
    await legacyLeaf(stampedOther.threadId);
    await h.run(edits(engine).digestOther, [stampedOther.threadId, stampedOther.headId]);
    expect(await cleanupAtAdmission({ store: h.store, threadId: stampedOther.threadId, selectors: [] })).toEqual({ action: "noop", reason: "versions_differ" });
    const unstamp = async (threadId: string, id: string) => {
      await legacyLeaf(threadId);
      await h!.run(edits(engine).unstamp, [threadId, id]);
    };
    const mixed = await buildLinear(h, 1);
    await unstamp(mixed.threadId, mixed.headId);
    expect(await cleanupAtAdmission({ store: h.store, threadId: mixed.threadId, selectors: [] })).toEqual({ action: "noop", reason: "versions_differ" });
    const legacy = await buildLinear(h, 1);
    const legacyParent = (await loadThreadGraph(h.store, legacy.threadId)).nodes.get(legacy.headId)!.parentId!;
    await unstamp(legacy.threadId, legacy.headId);
    await unstamp(legacy.threadId, legacyParent);
    await h.run(edits(engine).changeNotesVersion, [legacy.threadId, legacy.headId]);
    expect(await cleanupAtAdmission({ store: h.store, threadId: legacy.threadId, selectors: [] })).toEqual({ action: "noop", reason: "versions_differ" });
    const legacySame = await buildLinear(h, 1);
    await unstamp(legacySame.threadId, legacySame.headId);
    await unstamp(legacySame.threadId, (await loadThreadGraph(h.store, legacySame.threadId)).nodes.get(legacySame.headId)!.parentId!);
    expect(await cleanupAtAdmission({ store: h.store, threadId: legacySame.threadId, selectors: [] })).toMatchObject({ action: "deleted", leafId: legacySame.headId });

    const orphaned = await buildLinear(h, 1);
    const parent = (await loadThreadGraph(h.store, orphaned.threadId)).nodes.get(orphaned.headId)!.parentId!;
    await h.run("DELETE FROM checkpoints WHERE thread_id = ? AND checkpoint_id = ?", [orphaned.threadId, parent]);
    expect(await cleanupAtAdmission({ store: h.store, threadId: orphaned.threadId, selectors: [] })).toEqual({ action: "noop", reason: "missing_parent" });
    for (const t of [failed, writes, changed, moved, stampedOther, mixed, legacy, orphaned]) expect((await loadThreadGraph(h.store, t.threadId)).nodes.size).toBeGreaterThan(0);
    expect((await loadThreadGraph(h.store, writes.threadId)).nodes.has(writes.headId)).toBe(true);
  });

  it("[CRC-14] a recorded leaf is judged from its run row: neither checkpoint's metadata nor body is read", async () => {
    h = await openEngineHarness(db(), config);
    const shape = await buildLinear(h, 2);
    const parentId = (await loadThreadGraph(h.store, shape.threadId)).nodes.get(shape.headId)!.parentId!;
    // The metadata now says the versions differ: it is not read.
    await h.run(edits(engine).digestOther, [shape.threadId, shape.headId]);
    await h.run(edits(engine).digestOther, [shape.threadId, parentId]);
    if (engine === "sqlite") {
      // Nothing of either row past its key columns can even be parsed.
      for (const id of [shape.headId, parentId]) {
        await h.run("UPDATE checkpoints SET checkpoint = CAST('{not json' AS BLOB), metadata = CAST('{not json' AS BLOB) WHERE thread_id = ? AND checkpoint_id = ?", [shape.threadId, id]);
      }
      expect(await cleanupAtAdmission({ store: h.store, threadId: shape.threadId, selectors: [] })).toMatchObject({ action: "deleted", leafId: shape.headId });
    } else {
      expect(await cleanupAtAdmission({ store: h.store, threadId: shape.threadId, selectors: [] })).toMatchObject({ action: "deleted", leafId: shape.headId });
    }
  });

  it.skipIf(engine !== "postgres")("[CRC-10] PostgreSQL: the deletion itself refuses a leaf that names a version its parent does not (no blob may be stranded)", async () => {
    h = await openEngineHarness(db(), config);
    const shape = await buildLinear(h, 2);
    await h.run(edits(engine).changeNotesVersion, [shape.threadId, shape.headId]);
    const blobs = await blobCount(db(), shape.threadId);
    // The recorded digests agree, the stored versions do not: the guarded delete keeps the leaf.
    expect(await cleanupAtAdmission({ store: h.store, threadId: shape.threadId, selectors: [] })).toEqual({ action: "noop", reason: "raced" });
    expect((await loadThreadGraph(h.store, shape.threadId)).nodes.has(shape.headId)).toBe(true);
    expect(await blobCount(db(), shape.threadId)).toBe(blobs);
  });

  it("[CRC-14] cost is flat: a 1-run and a real 40-run thread take the same two statements on keys (the head lookup, one delete guarded by the parent lookup and the write probe), and no checkpoint metadata is read (on SQLite no body either)", { timeout: 240_000 }, async () => {
    h = await openEngineHarness(db(), config);
    withAdmission(h);
    const small = await buildLinear(h, 1);
    // A real thread: every turn a run through startRun (admission at each), no appended rows.
    const long = await buildLinear(h, 40);
    const graph = await loadThreadGraph(h.store, long.threadId);
    expect(graph.nodes.size).toBeGreaterThan(150);
    const head = graph.nodes.get(graph.headId!)!;
    expect(head.durationOnly).toBe(true);
    if (engine === "sqlite") {
      // Neither row past its key columns can be parsed: a metadata or body read would fail the proof.
      for (const id of [head.id, head.parentId!]) {
        await h.run("UPDATE checkpoints SET checkpoint = CAST('{not json' AS BLOB), metadata = CAST('{not json' AS BLOB) WHERE thread_id = ? AND checkpoint_id = ?", [long.threadId, id]);
      }
    }
    const counted: string[][] = [];
    for (const t of [small.threadId, long.threadId]) {
      const { store, executed } = engine === "sqlite" ? countingStore(h!.sqlite) : countingPgStore(db().pg!.db);
      expect(await cleanupAtAdmission({ store, threadId: t, selectors: [] })).toMatchObject({ action: "deleted" });
      counted.push(executed);
    }
    // The reclaim bumps the thread's retention epoch in the deletion's transaction: on SQLite a statement
    // of its own after the deletion, on PostgreSQL part of the deletion statement.
    const isBump = (sql: string) => /^insert into checkpoint_epochs/i.test(sql);
    for (const sqls of counted) {
      if (engine === "sqlite") expect(sqls.map(isBump)).toEqual([false, false, true]);
      else expect(sqls.at(-1)).toMatch(/^with top as materialized[\s\S]*gone as \(delete from checkpoints[\s\S]*insert into checkpoint_epochs/);
    }
    const retention = counted.map((sqls) => sqls.filter((sql) => !isBump(sql)));
    // Head lookup, then the deletion whose guards hold the parent lookup and the write probe (CRC-14: at most two lookups, one probe, one deletion).
    expect(retention[0]).toHaveLength(2);
    expect(retention[0]![1]).toMatch(/^(with top as materialized[\s\S]*)?delete from checkpoints/i);
    expect(retention[0]![1]).toMatch(engine === "sqlite" ? /FROM writes[\s\S]*checkpoints\.parent_checkpoint_id/ : /from checkpoint_writes[\s\S]*c\.parent_checkpoint_id/);
    expect(counted[1]).toEqual(counted[0]);
    // No statement names a checkpoint's metadata outside the legacy branch of the head lookup.
    expect(retention[0]!.slice(1).some((sql) => /metadata|channel_versions_digest/.test(sql))).toBe(false);
    // SQLite's plans: every lookup on a key (PostgreSQL's depend on table statistics; its bytes are measured in scripts/bench/checkpoint-admission.ts).
    for (const sql of engine === "sqlite" ? counted[0]! : []) {
      const plan = (h.sqlite.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...(sql.includes("@thread") ? [{ thread: "t", ns: "", leaf: "l" }] : sql.split("?").slice(1).map(() => "x"))) as { detail: string }[])
        .map((r) => r.detail)
        .join("; ");
      expect(plan).not.toMatch(/SCAN (c|k|r|checkpoints|writes|checkpoint_runs)\b(?! USING)/);
    }
  });

  it("[CRC-15] the admitted run's selected checkpoint is protected, the history cache is invalidated before deletion, and failures never fail admission", async () => {
    h = await openEngineHarness(db(), config);
    const shape = await buildLinear(h, 2);
    const cache = withAdmission(h);
    // Resuming the leaf itself: it is selected, so it stays.
    const resumed = await startRun(h.deps, { threadId: shape.threadId, content: "resume leaf", checkpointId: shape.headId });
    expect(resumed.status).toBe("success");
    expect((await loadThreadGraph(h.store, shape.threadId)).nodes.has(shape.headId)).toBe(true);
    // The cache entry for the current leaf is dropped before the leaf goes.
    const leafId = (await loadThreadGraph(h.store, shape.threadId)).headId!;
    cache.set(shape.threadId, leafId, { run_durations: {}, run_message_ids: {} });
    const order: string[] = [];
    const watched = { ...cache, invalidate: (threadId: string) => (order.push("invalidate"), cache.invalidate(threadId)) };
    const store = h.store;
    const watchedStore = { ...store, deleteTrailingLeaf: (threadId: string, id: string) => (order.push("delete"), store.deleteTrailingLeaf(threadId, id)) };
    expect(await cleanupAtAdmission({ store: watchedStore, threadId: shape.threadId, selectors: [], cache: watched })).toMatchObject({ action: "deleted" });
    expect(order).toEqual(["invalidate", "delete"]);
    expect(cache.get(shape.threadId, leafId)).toBeUndefined();
    // An invalidation failure leaves the leaf intact.
    const next = await startRun(h.deps, { threadId: shape.threadId, content: "again" });
    const broken = { ...createRunHistoryCache(), invalidate: () => { throw new Error("cache down"); } };
    expect(await cleanupAtAdmission({ store: h.store, threadId: shape.threadId, selectors: [], cache: broken })).toEqual({ action: "noop", reason: "invalidation_failed" });
    const after = await loadThreadGraph(h.store, shape.threadId);
    expect(after.nodes.get(after.headId!)!.parentId).toBe(next.checkpointId);
    // A failing connection never fails admission.
    const failing = new Proxy({} as CheckpointStore, { get: () => () => { throw new Error("database is locked"); } });
    h.deps = { ...h.deps, admit: admissionHook({ store: failing }) };
    expect((await startRun(h.deps, { threadId: shape.threadId, content: "still runs" })).status).toBe("success");
  });

  it("[CRC-13] history reads the runs recorded beside the checkpoints whichever checkpoint is latest, and reads never write", async () => {
    h = await openEngineHarness(db(), config);
    const { threadId } = await createThread(h.deps);
    withAdmission(h);
    const ok: string[] = [];
    for (const q of ["one", "two", "three"]) ok.push((await startRun(h.deps, { threadId, content: q })).runId);
    const read = () => readRunHistory({ accessor: h!.accessor, threadId, store: h!.store });
    expect(await read()).toMatchObject({ source: "runs", history: { run_order: ok } });
    // Admission reclaims the leaf, then the run fails: no leaf at the head, the history is whole anyway.
    await startRun(h.deps, { threadId, content: "fails", beforeNode: (n) => { if (n === "reply") throw new Error("x"); } });
    const rows = await h.store.threadTotals(threadId);
    for (let i = 0; i < 3; i += 1) expect(await read()).toMatchObject({ source: "runs", history: { run_order: ok } });
    expect(await h.store.threadTotals(threadId)).toEqual(rows);
    // Completion never cleans up: the next successful run's leaf stays the head.
    const five = await startRun(h.deps, { threadId, content: "five" });
    const okGraph = await loadThreadGraph(h.store, threadId);
    expect(okGraph.nodes.get(okGraph.headId!)!.parentId).toBe(five.checkpointId);
    expect(Object.keys((await read())!.history.run_durations)).toEqual([...ok, five.runId]);
  });

  it("[CRC-13] a thread whose leaf still carries the old run-history maps reads them from the latest checkpoint, scans when it is absent, and its first new run records them", async () => {
    h = await openEngineHarness(db(), config);
    const { threadId } = await createThread(h.deps);
    const ok: string[] = [];
    for (const q of ["one", "two", "three"]) ok.push((await startRun(h.deps, { threadId, content: q })).runId);
    // The thread as written before checkpoint_runs: no rows, the maps on the newest leaf (in run order, not key order).
    const durations = Object.fromEntries(ok.map((id, i) => [id, 10 + i]));
    const ids = Object.fromEntries(ok.map((id) => [id, [`m-${id}`]]));
    await h.run("DELETE FROM checkpoint_runs WHERE thread_id = ?", [threadId]);
    const head = (await loadThreadGraph(h.store, threadId)).headId!;
    const setMap = engine === "postgres"
      ? (key: string, value: unknown) => h!.run(`UPDATE checkpoints SET metadata = jsonb_set(metadata, '{${key}}', ?::jsonb) WHERE thread_id = ? AND checkpoint_id = ?`, [JSON.stringify(value), threadId, head])
      : (key: string, value: unknown) => h!.run(`UPDATE checkpoints SET metadata = json_set(CAST(metadata AS TEXT), '$.${key}', json(?)) WHERE thread_id = ? AND checkpoint_id = ?`, [JSON.stringify(value), threadId, head]);
    await setMap("run_durations", durations);
    await setMap("run_message_ids", ids);
    await setMap("run_order", ok);
    const cache = createRunHistoryCache();
    const read = () => readRunHistory({ accessor: h!.accessor, threadId, cache, store: h!.store });
    expect(await read()).toMatchObject({ source: "latest", history: { run_durations: durations, run_order: ok } });
    expect((await read())?.source).toBe("cache");
    const rows = await h.store.threadTotals(threadId);
    expect(await h.store.threadTotals(threadId)).toEqual(rows);
    // The next run (admitted with cleanup: the legacy leaf goes) records the legacy runs first.
    withAdmission(h, cache);
    const four = await startRun(h.deps, { threadId, content: "four" });
    expect((await loadThreadGraph(h.store, threadId)).nodes.has(head)).toBe(false);
    const after = await read();
    expect(after?.source).toBe("runs");
    expect(after!.history.run_order).toEqual([...ok, four.runId]);
    expect(after!.history.run_durations).toMatchObject(durations);
    expect(after!.history.run_message_ids[ok[0]!]).toEqual([`m-${ok[0]}`]);
    // Without rows and without a carrier at the head, the bounded scan answers.
    const other = await createThread(h.deps);
    h.deps = { ...h.deps, admit: undefined };
    await startRun(h.deps, { threadId: other.threadId, content: "x", beforeNode: (n) => { if (n === "plan") throw new Error("x"); } });
    await h.run("DELETE FROM checkpoint_runs WHERE thread_id = ?", [other.threadId]);
    expect((await readRunHistory({ accessor: h.accessor, threadId: other.threadId, store: h.store }))?.source).toBe("scan");
  });
}));

describeEachEngine("admission cleanup on every run", ({ db }) => describe.each(MODES)("%s mode", (_name, config) => {
  it("[CRC-15] [CRC-08] with cleanup at each admission, resume, explicit resume, branch and regenerate keep working and no orphans appear", async () => {
    h = await openEngineHarness(db(), config);
    withAdmission(h);
    const shape = await buildLinear(h, 4);
    // Only the newest leaf survives; every earlier one was reclaimed at admission.
    const graph = await loadThreadGraph(h.store, shape.threadId);
    expect(shape.leaves.slice(0, 3).some((id) => graph.nodes.has(id))).toBe(false);
    // Every handle the run API gave out survives (each is on the head's path).
    expect(shape.runs.every((id) => graph.nodes.has(id))).toBe(true);
    const [, second] = await replies(h, shape.threadId);
    expect((await regenerate(h.deps, shape.threadId, second!)).status).toBe("success");
    expect(await h.store.countOrphanWrites(shape.threadId)).toBe(0);
    // The explicit target: run 4's handle, which the regenerate left as the abandoned branch's
    // tip in full mode (its leaf went at admission); then an admin's Clean up, then four ways.
    const expectAfter = await captureExpect(h, shape.threadId, shape.runs[3]!);
    expect((await maintainThread({ store: h.store, dryRun: false, graftLinks: true, keepRunHistoryCarrier: true, handles: handlePolicy(h.deps) }, shape.threadId)).skipped).toBeNull();
    expect(await verifyFourWays(h, shape.threadId, expectAfter)).toEqual(ALL_OK);
  });

  it("[CRC-13] concurrent runs on one thread: each admission runs under the thread lock, every run's duration survives in the run history", async () => {
    h = await openEngineHarness(db(), config);
    withAdmission(h);
    const { threadId } = await createThread(h.deps);
    const results = await Promise.all(["a", "b", "c", "d"].map((content) => startRun(h!.deps, { threadId, content })));
    expect(results.map((r) => r.status)).toEqual(["success", "success", "success", "success"]);
    const graph = await loadThreadGraph(h.store, threadId);
    expect([...graph.nodes.values()].filter((n) => n.durationOnly).map((n) => n.id)).toEqual([graph.headId]);
    const history = await readRunHistory({ accessor: h.accessor, threadId, store: h.store });
    expect(Object.keys(history!.history.run_durations).sort()).toEqual(results.map((r) => r.runId).sort());
  });

  it("[CRC-01] resume handles off the path: after a full-mode fork, Clean up keeps every handle until its time to live, then reclaims the tip; an expired handle answers checkpoint_handle_expired (410)", async () => {
    h = await openEngineHarness(db(), config);
    withAdmission(h);
    const shape = await buildLinear(h, 4);
    // Resuming run 1's handle: full mode forks there, delta writes onto the head.
    expect((await startRun(h.deps, { threadId: shape.threadId, content: "from run 1", checkpointId: shape.runs[0]! })).status).toBe("success");
    const [, , inner, tip] = shape.runs as [string, string, string, string];
    const cleanUp = () => maintainThread({ store: h!.store, dryRun: false, graftLinks: true, handles: handlePolicy(h!.deps) }, shape.threadId);
    const resume = (checkpointId: string) => startRun(h!.deps, { threadId: shape.threadId, content: "resume", checkpointId });
    await cleanUp();
    // The abandoned branch's tip (childless, no writes, off the path in full mode) is kept as a handle.
    const graph = await loadThreadGraph(h.store, shape.threadId);
    expect(await judgeDeletion({ store: h.store, graph, checkpointId: tip, handles: handlePolicy(h.deps) })).toMatchObject({ deletable: false, reasons: expect.arrayContaining(["run_handle"]) });
    // Still stored and readable (a real resume from it is the acceptance test's, handle-lifetime.test.ts:
    // resuming here would give the tip children, which protect it for good).
    for (const id of shape.runs) expect(await h.accessor.getState(shape.threadId, id)).not.toBeNull();
    // Past the time to live the handles are no longer protected: Clean up may reclaim the tip.
    advanceClock(h.deps, (DEFAULT_HANDLE_TTL_DAYS + 1) * DAY_MS);
    await cleanUp();
    // Full mode: the tip is reclaimed; delta never forks, so every handle stays an ancestor of the head.
    expect((await loadThreadGraph(h.store, shape.threadId)).nodes.has(tip)).toBe(config.mode === "delta");
    // Either way an expired handle answers 410, reclaimed or not; an inner one (kept by its children) too.
    for (const id of [tip, inner, shape.runs[0]!]) {
      await expect(resume(id)).rejects.toMatchObject({ code: "checkpoint_handle_expired", message: expect.stringContaining(shape.threadId) });
    }
    // The thread itself goes on from its head.
    expect((await startRun(h.deps, { threadId: shape.threadId, content: "from the head" })).status).toBe("success");
  });

  it("[CRC-01] resume handles: run N's handle resumes after runs N+1..N+5, each admitted with cleanup; the reclaimed leaf id answers not_found", async () => {
    h = await openEngineHarness(db(), config);
    withAdmission(h);
    const shape = await buildLinear(h, 6);
    const handle = shape.runs[0]!;
    const conversation = (await h.accessor.getState(shape.threadId, handle))!.values.messages.map((m) => String(m.id));
    expect(conversation).toHaveLength(4);
    const resumed = await startRun(h.deps, { threadId: shape.threadId, content: "from run 1", checkpointId: handle });
    expect(resumed.status).toBe("success");
    const after = (await h.accessor.getState(shape.threadId))!.values.messages.map((m) => String(m.id));
    expect(after.slice(0, 4)).toEqual(conversation);
    expect(after).toHaveLength(8);
    // The leaf (never handed out) was reclaimed at the next admission.
    await expect(startRun(h.deps, { threadId: shape.threadId, content: "leaf", checkpointId: shape.leaves[0]! })).rejects.toMatchObject({ code: "not_found" });
  });
}));

describeEachEngine("admission cleanup, run cost", ({ db }) => describe("full mode", () => {
  it("a run admitted with cleanup decodes the head only for the graph and the leaf copy", async () => {
    h = await openEngineHarness(db(), FULL);
    const shape = await buildLinear(h, 3);
    withAdmission(h);
    // Head reads (no checkpoint id): in full mode each decodes the whole conversation.
    const saver = h.accessor.saver;
    const getTuple = saver.getTuple.bind(saver);
    let headReads = 0;
    saver.getTuple = (config) => {
      if (config.configurable?.checkpoint_id === undefined) headReads += 1;
      return getTuple(config);
    };
    const run = await startRun(h.deps, { threadId: shape.threadId, content: "four" });
    expect(run.status).toBe("success");
    expect(headReads).toBe(2);
    const history = await readRunHistory({ accessor: h.accessor, threadId: shape.threadId, store: h.store });
    expect(Object.keys(history!.history.run_durations)).toHaveLength(4);
  });
}));
