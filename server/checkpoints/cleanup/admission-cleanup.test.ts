import type Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { startRun } from "../runs";
import { createSqliteCheckpointStore } from "../sqlite-store";
import { createThread, regenerate } from "../threads";
import { appendTurns } from "../long-thread-test-support";
import { admissionHook, cleanupAtAdmission } from "./admission-cleanup";
import { ALL_OK, buildLinear, captureExpect, FULL, MODES, openEngineHarness, replies, verifyFourWays, type Harness } from "./contract-support";
import { describeEachEngine, type EngineName } from "@/server/engines-test-support";
import type { CheckpointStore } from "../store";
import { createRunHistoryCache, readRunHistory } from "./run-history";
import { loadThreadGraph } from "./thread-graph";
import { maintainThread } from "./maintenance";

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
    prepare(sql: string) {
      const statement = real.prepare(sql);
      return new Proxy(statement, {
        get(target, key) {
          const value = Reflect.get(target, key) as unknown;
          if (typeof value !== "function") return value;
          if (key === "get" || key === "all" || key === "run" || key === "iterate") {
            return (...args: unknown[]) => {
              executed.push(sql);
              return (value as (...a: unknown[]) => unknown).apply(target, args);
            };
          }
          return (value as (...a: unknown[]) => unknown).bind(target);
        },
      });
    },
  };
  return { store: createSqliteCheckpointStore(view as unknown as Database.Database), executed };
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
  it("[CRC-10] deletes only the trailing leaf whose parent has identical channel_versions; the admitted run carries its run history", async () => {
    h = await openEngineHarness(db(), config);
    const shape = await buildLinear(h, 3);
    const leaf = await h.accessor.getState(shape.threadId, shape.headId);
    const parentId = loadThreadGraph(h.store, shape.threadId).nodes.get(shape.headId)!.parentId!;
    const writesBefore = h.store.threadTotals(shape.threadId).writes;
    withAdmission(h);
    const run = await startRun(h.deps, { threadId: shape.threadId, content: "four" });
    const graph = loadThreadGraph(h.store, shape.threadId);
    expect(graph.nodes.has(shape.headId)).toBe(false);
    // The parent now carries the run, with exactly the leaf's state.
    expect(graph.children.get(parentId)).toHaveLength(1);
    expect((await h.accessor.getState(shape.threadId, parentId))!.values).toEqual(leaf!.values);
    expect(h.store.countOrphanWrites(shape.threadId)).toBe(0);
    expect(h.store.threadTotals(shape.threadId).writes).toBeGreaterThan(writesBefore);
    // The new leaf carries every run's duration, the reclaimed leaf's included.
    const history = await readRunHistory({ accessor: h.accessor, threadId: shape.threadId });
    expect(history?.source).toBe("latest");
    expect(Object.keys(history!.history.run_durations)).toHaveLength(4);
    expect(run.checkpointId).toBe(graph.nodes.get(graph.headId!)!.parentId);
  });

  it("[CRC-14] no-op on a head that is not a duration leaf, pending writes, changed versions or a missing parent", async () => {
    h = await openEngineHarness(db(), config);
    const failed = await buildLinear(h, 1);
    await startRun(h.deps, { threadId: failed.threadId, content: "x", beforeNode: (n) => { if (n === "reply") throw new Error("x"); } });
    expect(cleanupAtAdmission({ store: h.store, threadId: failed.threadId, selectors: [] })).toEqual({ action: "noop", reason: "head_not_duration_leaf" });

    const writes = await buildLinear(h, 1);
    await h.accessor.saver.putWrites(h.accessor.runConfig(writes.threadId, writes.headId), [["notes", "pending"]], "task-1");
    expect(cleanupAtAdmission({ store: h.store, threadId: writes.threadId, selectors: [] })).toEqual({ action: "noop", reason: "pending_writes" });

    // The proof reads the channel_versions digest stamped into metadata.
    const changed = await buildLinear(h, 1);
    h.run(edits(engine).digestOther, [changed.threadId, changed.headId]);
    expect(cleanupAtAdmission({ store: h.store, threadId: changed.threadId, selectors: [] })).toEqual({ action: "noop", reason: "versions_differ" });

    // Rows written before the digest existed: bodies are compared instead,
    // and a digest never matches a body (the leaf stays).
    const unstamp = (threadId: string, id: string) => h!.run(edits(engine).unstamp, [threadId, id]);
    const mixed = await buildLinear(h, 1);
    unstamp(mixed.threadId, mixed.headId);
    expect(cleanupAtAdmission({ store: h.store, threadId: mixed.threadId, selectors: [] })).toEqual({ action: "noop", reason: "versions_differ" });
    const legacy = await buildLinear(h, 1);
    const legacyParent = loadThreadGraph(h.store, legacy.threadId).nodes.get(legacy.headId)!.parentId!;
    unstamp(legacy.threadId, legacy.headId);
    unstamp(legacy.threadId, legacyParent);
    h.run(edits(engine).changeNotesVersion, [legacy.threadId, legacy.headId]);
    expect(cleanupAtAdmission({ store: h.store, threadId: legacy.threadId, selectors: [] })).toEqual({ action: "noop", reason: "versions_differ" });
    const legacySame = await buildLinear(h, 1);
    unstamp(legacySame.threadId, legacySame.headId);
    unstamp(legacySame.threadId, loadThreadGraph(h.store, legacySame.threadId).nodes.get(legacySame.headId)!.parentId!);
    expect(cleanupAtAdmission({ store: h.store, threadId: legacySame.threadId, selectors: [] })).toMatchObject({ action: "deleted", leafId: legacySame.headId });

    const orphaned = await buildLinear(h, 1);
    const parent = loadThreadGraph(h.store, orphaned.threadId).nodes.get(orphaned.headId)!.parentId!;
    h.run("DELETE FROM checkpoints WHERE thread_id = ? AND checkpoint_id = ?", [orphaned.threadId, parent]);
    expect(cleanupAtAdmission({ store: h.store, threadId: orphaned.threadId, selectors: [] })).toEqual({ action: "noop", reason: "missing_parent" });
    for (const t of [failed, writes, changed, mixed, legacy, orphaned]) expect(loadThreadGraph(h.store, t.threadId).nodes.size).toBeGreaterThan(0);
    expect(loadThreadGraph(h.store, writes.threadId).nodes.has(writes.headId)).toBe(true);
  });

  it("[CRC-14] the proof reads the channel_versions digest in metadata, never the checkpoint bodies", async () => {
    h = await openEngineHarness(db(), config);
    const shape = await buildLinear(h, 2);
    // The head's body now names other versions, its stamped digest still equals the parent's: the digest decides.
    h.run(edits(engine).changeNotesVersion, [shape.threadId, shape.headId]);
    expect(cleanupAtAdmission({ store: h.store, threadId: shape.threadId, selectors: [] })).toMatchObject({ action: "deleted", leafId: shape.headId });
  });

  // SQLite's statement plans are checked here; PostgreSQL runs the same verbs on primary keys (pg-store.ts).
  it.skipIf(engine !== "sqlite")("[CRC-14] cost is flat: a 1-turn and a real 1,000-turn thread run the same primary-key statements, and no checkpoint body is parsed", { timeout: 120_000 }, async () => {
    h = await openEngineHarness(db(), config);
    withAdmission(h);
    const small = await buildLinear(h, 1);
    const { threadId } = await createThread(h.deps);
    for (let i = 0; i < 2; i += 1) expect((await startRun(h.deps, { threadId, content: `first ${i}` })).status).toBe("success");
    await appendTurns({ accessor: h.accessor, threadId, turns: 997, newId: h.newId });
    expect((await startRun(h.deps, { threadId, content: "last" })).status).toBe("success");
    const graph = loadThreadGraph(h.store, threadId);
    expect(graph.nodes.size).toBeGreaterThan(1_000);
    const head = graph.nodes.get(graph.headId!)!;
    expect(head.durationOnly).toBe(true);
    // Full conversations: in full mode the leaf and its parent hold all 2,000 messages.
    const bodyBytes = (id: string) => (h!.sqlite.prepare("SELECT length(checkpoint) AS n FROM checkpoints WHERE thread_id = ? AND checkpoint_id = ?").get(threadId, id) as { n: number }).n;
    if (config.mode === "full") expect(bodyBytes(head.parentId!)).toBeGreaterThan(200_000);
    // Bodies that cannot be parsed: a body read would throw (a logged no-op);
    // the digests in metadata prove the pair without them.
    for (const id of [head.id, head.parentId!]) h.sqlite.prepare("UPDATE checkpoints SET checkpoint = CAST('{not json' AS BLOB) WHERE thread_id = ? AND checkpoint_id = ?").run(threadId, id);
    const counted = [small.threadId, threadId].map((t) => {
      const { store, executed } = countingStore(h!.sqlite);
      expect(cleanupAtAdmission({ store, threadId: t, selectors: [] })).toMatchObject({ action: "deleted" });
      return executed;
    });
    expect(counted[0]).toHaveLength(4); // head lookup, parent lookup, write probe, deletion
    expect(counted[1]).toEqual(counted[0]);
    for (const sql of counted[0]!) {
      const plan = (h.sqlite.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...(sql.includes("@thread") ? [{ thread: "t", ns: "", leaf: "l" }] : sql.split("?").slice(1).map(() => "x"))) as { detail: string }[])
        .map((r) => r.detail)
        .join("; ");
      expect(plan).not.toMatch(/SCAN (c|k|checkpoints|writes)\b(?! USING)/);
    }
  });

  it("[CRC-15] the admitted run's selected checkpoint is protected, the history cache is invalidated before deletion, and failures never fail admission", async () => {
    h = await openEngineHarness(db(), config);
    const shape = await buildLinear(h, 2);
    const cache = withAdmission(h);
    // Resuming the leaf itself: it is selected, so it stays.
    const resumed = await startRun(h.deps, { threadId: shape.threadId, content: "resume leaf", checkpointId: shape.headId });
    expect(resumed.status).toBe("success");
    expect(loadThreadGraph(h.store, shape.threadId).nodes.has(shape.headId)).toBe(true);
    // The cache entry for the current leaf is dropped before the leaf goes.
    const read = await readRunHistory({ accessor: h.accessor, threadId: shape.threadId, cache });
    const leafId = loadThreadGraph(h.store, shape.threadId).headId!;
    expect(cache.get(shape.threadId, leafId)).toEqual(read!.history);
    expect(cleanupAtAdmission({ store: h.store, threadId: shape.threadId, selectors: [], cache })).toMatchObject({ action: "deleted" });
    expect(cache.get(shape.threadId, leafId)).toBeUndefined();
    // An invalidation failure leaves the leaf intact.
    const next = await startRun(h.deps, { threadId: shape.threadId, content: "again" });
    const broken = { ...createRunHistoryCache(), invalidate: () => { throw new Error("cache down"); } };
    expect(cleanupAtAdmission({ store: h.store, threadId: shape.threadId, selectors: [], cache: broken })).toEqual({ action: "noop", reason: "invalidation_failed" });
    const after = loadThreadGraph(h.store, shape.threadId);
    expect(after.nodes.get(after.headId!)!.parentId).toBe(next.checkpointId);
    // A failing connection never fails admission.
    const failing = new Proxy({} as CheckpointStore, { get: () => () => { throw new Error("database is locked"); } });
    h.deps = { ...h.deps, admit: admissionHook({ store: failing }) };
    expect((await startRun(h.deps, { threadId: shape.threadId, content: "still runs" })).status).toBe("success");
  });

  it("[CRC-13] history reads take the cache from the latest checkpoint, scan when it is absent, and never bring the reclaimed leaf back", async () => {
    h = await openEngineHarness(db(), config);
    const { threadId } = await createThread(h.deps);
    withAdmission(h);
    for (const q of ["one", "two", "three"]) await startRun(h.deps, { threadId, content: q });
    const cache = createRunHistoryCache();
    const latest = await readRunHistory({ accessor: h.accessor, threadId, cache });
    expect(latest?.source).toBe("latest");
    expect(Object.keys(latest!.history.run_durations)).toHaveLength(3);
    // Admission reclaims the leaf, then the run fails: no carrier at the head.
    await startRun(h.deps, { threadId, content: "fails", beforeNode: (n) => { if (n === "reply") throw new Error("x"); } });
    const rows = h.store.threadTotals(threadId);
    for (let i = 0; i < 3; i += 1) expect((await readRunHistory({ accessor: h.accessor, threadId, cache }))?.source).toBe("scan");
    expect(h.store.threadTotals(threadId)).toEqual(rows);
    // Completion never cleans up: the next successful run's leaf stays the head.
    const ok = await startRun(h.deps, { threadId, content: "five" });
    const okGraph = loadThreadGraph(h.store, threadId);
    expect(okGraph.nodes.get(okGraph.headId!)!.parentId).toBe(ok.checkpointId);
    expect((await readRunHistory({ accessor: h.accessor, threadId, cache }))?.source).toBe("latest");
  });
}));

describeEachEngine("admission cleanup on every run", ({ db }) => describe.each(MODES)("%s mode", (_name, config) => {
  it("[CRC-15] [CRC-08] with cleanup at each admission, resume, explicit resume, branch and regenerate keep working and no orphans appear", async () => {
    h = await openEngineHarness(db(), config);
    withAdmission(h);
    const shape = await buildLinear(h, 4);
    // Only the newest leaf survives; every earlier one was reclaimed at admission.
    const graph = loadThreadGraph(h.store, shape.threadId);
    expect(shape.leaves.slice(0, 3).some((id) => graph.nodes.has(id))).toBe(false);
    // Every handle the run API gave out survives (each is on the head's path).
    expect(shape.runs.every((id) => graph.nodes.has(id))).toBe(true);
    const explicit = graph.nodes.get(graph.nodes.get(shape.headId)!.parentId!)!.parentId!;
    const expectAfter = await captureExpect(h, shape.threadId, explicit);
    expect(await verifyFourWays(h, shape.threadId, expectAfter)).toEqual(ALL_OK);
    const [, second] = await replies(h, shape.threadId);
    expect((await regenerate(h.deps, shape.threadId, second!)).status).toBe("success");
    expect(h.store.countOrphanWrites(shape.threadId)).toBe(0);
  });

  it("[CRC-13] concurrent runs on one thread: each admission runs under the thread lock, every run's duration survives in the newest leaf", async () => {
    h = await openEngineHarness(db(), config);
    withAdmission(h);
    const { threadId } = await createThread(h.deps);
    const results = await Promise.all(["a", "b", "c", "d"].map((content) => startRun(h!.deps, { threadId, content })));
    expect(results.map((r) => r.status)).toEqual(["success", "success", "success", "success"]);
    const graph = loadThreadGraph(h.store, threadId);
    expect([...graph.nodes.values()].filter((n) => n.durationOnly).map((n) => n.id)).toEqual([graph.headId]);
    const history = await readRunHistory({ accessor: h.accessor, threadId });
    expect(Object.keys(history!.history.run_durations).sort()).toEqual(results.map((r) => r.runId).sort());
  });

  it("[CRC-01] resume handles off the path: after a full-mode fork, Clean up reclaims the abandoned tip's handle (then 404); inner ones and delta's stay", async () => {
    h = await openEngineHarness(db(), config);
    withAdmission(h);
    const shape = await buildLinear(h, 4);
    // Resuming run 1's handle: full mode forks there, delta writes onto the head.
    expect((await startRun(h.deps, { threadId: shape.threadId, content: "from run 1", checkpointId: shape.runs[0]! })).status).toBe("success");
    const [, , inner, tip] = shape.runs as [string, string, string, string];
    // Until an admin's Clean up runs, every handle is still stored.
    for (const id of shape.runs) expect(await h.accessor.getState(shape.threadId, id)).not.toBeNull();
    maintainThread({ store: h.store, dryRun: false }, shape.threadId);
    const resume = (checkpointId: string) => startRun(h!.deps, { threadId: shape.threadId, content: "resume", checkpointId });
    if (config.mode === "full") {
      // The abandoned branch's tip: childless, no writes, off the path.
      await expect(resume(tip)).rejects.toMatchObject({ code: "not_found" });
    } else {
      expect((await resume(tip)).status).toBe("success");
    }
    // An inner handle of the abandoned branch is protected by its children.
    expect((await resume(inner)).status).toBe("success");
    // Run 1's handle is on the path in both modes.
    expect((await resume(shape.runs[0]!)).status).toBe("success");
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
  it("[CRC-13] a run admitted with the reclaimed leaf's history decodes the head only for the graph and the leaf copy", async () => {
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
    const history = await readRunHistory({ accessor: h.accessor, threadId: shape.threadId });
    expect(Object.keys(history!.history.run_durations)).toHaveLength(4);
  });
}));
