// On PostgreSQL the pass reads and reduces its next batch while the previous
// one is written (store.readsBesideWriter). Whatever happens to the batch in
// flight (committed, a task falling out of it, a row the server refuses), the
// pass ends with the same stored rows and the same counts as a pass that
// writes one batch at a time on the same data.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { manualClock } from "@/server/clock";
import { applyPgMigrations } from "@/server/db/pg/migrate";
import { readPgConfig } from "@/server/db/pg/config";
import { createPgDb, type PgDb } from "@/server/db/pg/pg-db";
import { createEmptyPgDatabase, TEST_POSTGRES_URL } from "@/server/db/pg/test-db";
import { createPgWorkspaceStore } from "@/server/workspace/pg-store";
import { createPgCompactionStore } from "../store/pg-store";
import type { CompactionStore } from "../store";
import { NOW_MS, armPolicyOn, shellMetadata } from "../test-support";
import { runCleanupPass, type CleanupPassOptions } from "./pass";

const OLD = "2025-01-01T00:00:00Z";

let server: Awaited<ReturnType<typeof createEmptyPgDatabase>>;
let db: PgDb;
beforeAll(async () => {
  if (!TEST_POSTGRES_URL) return;
  server = await createEmptyPgDatabase();
  db = createPgDb(readPgConfig(server.url, {}));
  await applyPgMigrations(db);
});
afterAll(async () => {
  await db?.close();
  await server?.drop();
});
beforeEach(async () => {
  if (!TEST_POSTGRES_URL) return;
  await db.exec("truncate tasks, task_sessions, turns, messages, settings restart identity cascade");
});

/** Old completed tasks of `rows` shell messages each, in `sessions` sessions (named so that their id order is not their creation order). */
async function seed(tasks: Record<string, number>, sessions = 1): Promise<void> {
  const workspace = createPgWorkspaceStore(db);
  await workspace.writeTransaction(async (tx) => {
    for (const [id, rows] of Object.entries(tasks)) {
      await tx.insertTask({ id, title: id, state: "COMPLETED", createdAt: OLD, updatedAt: OLD, queuedForStep: false });
      for (let k = 0; k < sessions; k += 1) {
        const session = `${id}-s${String.fromCharCode(122 - k)}`;
        await tx.insertSession({ id: session, taskId: id, state: "COMPLETED", startedAt: OLD, updatedAt: OLD, completedAt: OLD });
        await tx.insertTurn({ id: `${session}-u`, sessionId: session, startedAt: OLD, completedAt: OLD });
        for (let m = 0; m < rows; m += 1) {
          await tx.insertMessage({ id: `${session}-m${m}`, sessionId: session, turnId: `${session}-u`, authorType: "agent", type: "tool_execute", content: "tool", metadata: shellMetadata(`${session}-c${m}`, "x".repeat(2000)), toolCallId: `${session}-c${m}`, createdAt: OLD, updatedAt: OLD });
        }
      }
    }
  });
}

const storedRows = () => db.query<{ id: string; metadata: string }>("select id, metadata from messages order by rowid");
const oneAtATime = (store: CompactionStore): CompactionStore => ({ ...store, readsBesideWriter: false });
// What the PostgreSQL store does (readsBesideWriter); forced here so the comparison holds whatever the store says.
const besideTheWriter = (store: CompactionStore): CompactionStore => ({ ...store, readsBesideWriter: true });

/** Runs a pass on freshly seeded data, with the batch written beside the walk or not; returns what it did and the rows it left. */
async function passOn(
  tasks: Record<string, number>,
  besideWalk: boolean,
  extra: (store: CompactionStore) => Partial<CleanupPassOptions> = () => ({}),
  options: { sessions?: number; probesOneByOne?: boolean } = {},
) {
  await db.exec("truncate tasks, task_sessions, turns, messages, settings restart identity cascade");
  await seed(tasks, options.sessions);
  const pgStore = createPgCompactionStore(db);
  const chosen = besideWalk ? besideTheWriter(pgStore) : oneAtATime(pgStore);
  // Without the one-statement probes the pass asks each probe and lists each task's sessions itself.
  const store = options.probesOneByOne ? { ...chosen, taskProbes: undefined, tasksProbes: undefined } : chosen;
  await armPolicyOn(store, { value: 1, unit: "weeks" }, NOW_MS);
  const batches: number[] = [];
  const result = await runCleanupPass({
    store,
    clock: manualClock(NOW_MS),
    operationId: "run-1",
    wait: async () => {},
    maxBatchRows: 20,
    onBatch: ({ rows }) => void batches.push(rows),
    ...extra(store),
  });
  // The clock stands still: both passes record the same times too.
  return { state: result.state, operation: result.operation, batches, rows: await storedRows() };
}

describe.skipIf(!TEST_POSTGRES_URL)("a PostgreSQL pass that reads beside its writer", () => {
  it("[TPR-TX-03] a pass of many batches changes every row once, with the counts and bytes of a pass writing one batch at a time", async () => {
    const tasks = { a: 45, b: 7, c: 60, d: 1 };
    const beside = await passOn(tasks, true);
    const alone = await passOn(tasks, false);
    expect(beside.state).toBe("succeeded");
    expect(beside.operation).toMatchObject({ changedMessages: 113, eligibleTasks: 4 });
    expect(beside.batches.length).toBeGreaterThan(4);
    expect(beside.operation).toEqual(alone.operation);
    expect(beside.rows).toEqual(alone.rows);
  });

  it("[TPR-TX-01] a task that falls out of the batch in flight keeps every row, also those walked for the next batch; nothing is counted twice", async () => {
    const tasks = { a: 10, b: 50, c: 30 };
    // The first batch holds a's rows and b's first ones; b turns active while it waits to be written.
    const activateB = () => {
      let done = false;
      return {
        beforeBatch: async () => {
          if (done) return;
          done = true;
          await db.run(`update tasks set state = 'IN_PROGRESS' where id = 'b'`);
        },
      };
    };
    const beside = await passOn(tasks, true, activateB);
    const alone = await passOn(tasks, false, activateB);
    expect(beside.operation).toMatchObject({ changedMessages: 40, eligibleTasks: 2, skipped: { live_task: 1 } });
    expect(beside.operation).toEqual(alone.operation);
    expect(beside.rows).toEqual(alone.rows);
    expect(beside.rows.filter((row) => row.id.startsWith("b-") && row.metadata.includes("payload_retention"))).toEqual([]);
  });

  it("[TPR-RED-10] a row the server refuses rolls its batch back while the next one is read; the pass skips the row and writes the rest", async () => {
    const tasks = { a: 30, b: 30 };
    const refuse = async () =>
      db.exec(`create or replace function refuse_a_m5() returns trigger language plpgsql as $$ begin raise exception 'kept by policy'; end $$;
        drop trigger if exists refuse_a_m5 on messages;
        create trigger refuse_a_m5 before update of metadata on messages for each row when (old.id = 'a-sz-m5') execute function refuse_a_m5()`);
    await refuse();
    const beside = await passOn(tasks, true);
    const alone = await passOn(tasks, false);
    await db.exec("drop trigger if exists refuse_a_m5 on messages");
    expect(beside.operation).toMatchObject({ changedMessages: 59, skipped: { write_refused: 1 } });
    expect(beside.operation).toEqual(alone.operation);
    expect(beside.rows).toEqual(alone.rows);
  });

  it("[TPR-BAT-03] tasks of several sessions, walked from the sessions their one-statement probe listed and resumed across slices, end as with each probe and session list asked one by one", async () => {
    const tasks = { a: 12, b: 25, c: 3 };
    // Short slices (every fifth look between pages and tasks pauses): the cursor stops inside tasks and sessions and the next slice resumes there.
    const runAll = async (probesOneByOne: boolean) => {
      let looks = 0;
      const shouldPause = () => ++looks % 5 === 0;
      const first = await passOn(tasks, true, () => ({ shouldPause }), { sessions: 3, probesOneByOne });
      expect(first.state).toBe("running");
      const store = createPgCompactionStore(db);
      const resumed = probesOneByOne ? { ...store, taskProbes: undefined, tasksProbes: undefined } : store;
      let result;
      let passes = 1;
      do {
        result = await runCleanupPass({ store: resumed, clock: manualClock(NOW_MS), operationId: "run-1", wait: async () => {}, maxBatchRows: 20, shouldPause });
        passes += 1;
      } while (result.continuation && passes < 100);
      return { passes, operation: result.operation, rows: await storedRows() };
    };
    const fromProbes = await runAll(false);
    const oneByOne = await runAll(true);
    expect(fromProbes.operation).toMatchObject({ state: "succeeded", changedMessages: 120, eligibleTasks: 3 });
    expect(fromProbes.passes).toBeGreaterThan(3);
    expect(fromProbes.operation).toEqual(oneByOne.operation);
    expect(fromProbes.passes).toBe(oneByOne.passes);
    expect(fromProbes.rows).toEqual(oneByOne.rows);
  });
});
