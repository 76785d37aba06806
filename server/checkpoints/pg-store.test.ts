// The checkpoint store on PostgresSaver's table layout (checkpoints with
// jsonb, checkpoint_blobs by channel and version, checkpoint_writes): the
// same verbs as on SqliteSaver's tables, plus blob reachability — deleting
// checkpoints deletes the blobs no surviving checkpoint names, and keeps a
// version a survivor still shares.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { TASKS } from "@langchain/langgraph-checkpoint";
import { createPgTestDb, TEST_POSTGRES_URL, type PgTestDb } from "@/server/db/pg/test-db";
import { createPgCheckpointStore } from "./pg-store";

// The tables PostgresSaver.setup() creates (its migrations, abridged to the columns it uses).
const SAVER_TABLES = `
  create table if not exists checkpoints (thread_id text not null, checkpoint_ns text not null default '', checkpoint_id text not null,
    parent_checkpoint_id text, type text, checkpoint jsonb not null, metadata jsonb not null default '{}',
    primary key (thread_id, checkpoint_ns, checkpoint_id));
  create table if not exists checkpoint_blobs (thread_id text not null, checkpoint_ns text not null default '', channel text not null,
    version text not null, type text not null, blob bytea, primary key (thread_id, checkpoint_ns, channel, version));
  create table if not exists checkpoint_writes (thread_id text not null, checkpoint_ns text not null default '', checkpoint_id text not null,
    task_id text not null, idx integer not null, channel text not null, type text, blob bytea not null,
    primary key (thread_id, checkpoint_ns, checkpoint_id, task_id, idx))`;

describe.skipIf(!TEST_POSTGRES_URL)("checkpoint store on PostgresSaver's tables", () => {
  let db: PgTestDb;
  beforeAll(async () => {
    db = await createPgTestDb();
  });
  afterAll(() => db?.close());
  beforeEach(async () => {
    await db.db.exec(`drop table if exists checkpoints, checkpoint_blobs, checkpoint_writes`);
    await db.reset();
  });

  const checkpoint = (id: string, parent: string | null, versions: Record<string, string>, metadata: object = { source: "loop", step: 1 }) =>
    db.db.run(`insert into checkpoints (thread_id, checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata) values ('th', $1, $2, 'json', $3, $4)`, [
      id,
      parent,
      JSON.stringify({ v: 1, id, channel_versions: versions, channel_values: {} }),
      JSON.stringify(metadata),
    ]);
  const blob = (channel: string, version: string) =>
    db.db.run(`insert into checkpoint_blobs (thread_id, channel, version, type, blob) values ('th', $1, $2, 'json', convert_to($3, 'UTF8'))`, [channel, version, `"${channel}@${version}"`]);
  const write = (checkpointId: string, channel: string) =>
    db.db.run(`insert into checkpoint_writes (thread_id, checkpoint_id, task_id, idx, channel, type, blob) values ('th', $1, 'task', 0, $2, 'json', convert_to('{}', 'UTF8'))`, [
      checkpointId,
      channel,
    ]);
  const blobs = async () => (await db.db.query<{ k: string }>(`select channel || '@' || version as k from checkpoint_blobs order by 1`)).map((r) => r.k);

  it("answers empty before the saver created its tables", async () => {
    const store = createPgCheckpointStore(db.db);
    expect(await store.listThreadIds()).toEqual([]);
    expect(await store.tableUsage()).toEqual({ checkpoints: { rows: 0, bytes: 0 }, writes: { rows: 0, bytes: 0 } });
    expect(await store.largestThreads(5)).toEqual([]);
  });

  it("deletes checkpoints with their writes and the blobs only they reached; a version a survivor shares stays", async () => {
    await db.db.exec(SAVER_TABLES);
    await checkpoint("c1", null, { messages: "1", files: "1" });
    await checkpoint("c2", "c1", { messages: "2", files: "1" });
    await checkpoint("c3", "c2", { messages: "3", files: "1" });
    for (const [channel, version] of [["messages", "1"], ["messages", "2"], ["messages", "3"], ["files", "1"]] as const) await blob(channel, version);
    await write("c1", "messages");
    const store = createPgCheckpointStore(db.db);

    expect(await store.listThreadIds()).toEqual(["th"]);
    expect((await store.listThreadCheckpoints("th")).map((row) => [row.id, row.parentId, row.writesCount])).toEqual([
      ["c1", null, 1],
      ["c2", "c1", 0],
      ["c3", "c2", 0],
    ]);
    const deleted = await store.transaction(async () => {
      const out = await store.deleteCheckpoints("th", ["c1", "c2"]);
      await store.reparentChildren("th", "c2", "c1");
      return out;
    });
    expect(deleted).toEqual({ checkpoints: 2, writes: 1 });
    expect(await blobs()).toEqual(["files@1", "messages@3"]);
    expect(await store.countOrphanWrites()).toBe(0);
    expect(await store.threadTotals("th")).toMatchObject({ checkpoints: 1, writes: 0 });
  });

  it("proves a duration-only child equal to its parent and deletes a trailing leaf only while it is still the newest without writes", async () => {
    await db.db.exec(SAVER_TABLES);
    await checkpoint("c1", null, { messages: "1" });
    await write("c1", TASKS);
    await checkpoint("c2", "c1", { messages: "1" }, { source: "update", step: 2, writes: { runtime_run_duration: 12 } });
    await blob("messages", "1");
    const store = createPgCheckpointStore(db.db);
    expect(await store.compareWithParent("th", "c2", "c1")).toEqual({ versionsEqual: true, valuesEqual: true, parentHasTaskWrites: true });
    expect(await store.admissionHead("th")).toMatchObject({ id: "c2", parentId: "c1", durationOnly: true });
    expect(await store.listCheckpointOrigins("th")).toEqual([
      { id: "c1", source: "loop", step: 1 },
      { id: "c2", source: "update", step: 2 },
    ]);
    expect(await store.deleteTrailingLeaf("th", "c1")).toBe(false); // not the newest
    expect(await store.deleteTrailingLeaf("th", "c2")).toBe(true);
    // The blob c1 still names survives the leaf's deletion.
    expect(await blobs()).toEqual(["messages@1"]);
  });

  it("[CCM-13] answers parent links and where a path breaks: intact, a missing parent, a cycle", async () => {
    await db.db.exec(SAVER_TABLES);
    const store = createPgCheckpointStore(db.db);
    await checkpoint("c1", null, { messages: "1" });
    await checkpoint("c2", "c1", { messages: "2" });
    await checkpoint("c3", "c2", { messages: "3" });
    expect([...(await store.parentLinks("th"))].sort()).toEqual([["c1", null], ["c2", "c1"], ["c3", "c2"]]);
    expect(await store.pathBreak("th")).toBeNull();
    expect(await store.pathBreak("th", "c2")).toBeNull();
    expect(await store.pathBreak("th", "missing")).toBeNull();
    await db.db.run(`delete from checkpoints where thread_id = 'th' and checkpoint_id = 'c2'`);
    expect(await store.pathBreak("th")).toEqual({ kind: "missing_parent", checkpointId: "c3", parentId: "c2" });
    await checkpoint("c2", "c3", { messages: "2" });
    expect(await store.pathBreak("th")).toMatchObject({ kind: "cycle" });
  });
});
