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

/** Old completed tasks of `rows` shell messages each. */
async function seed(tasks: Record<string, number>): Promise<void> {
  const workspace = createPgWorkspaceStore(db);
  await workspace.writeTransaction(async (tx) => {
    for (const [id, rows] of Object.entries(tasks)) {
      await tx.insertTask({ id, title: id, state: "COMPLETED", createdAt: OLD, updatedAt: OLD, queuedForStep: false });
      await tx.insertSession({ id: `${id}-s`, taskId: id, state: "COMPLETED", startedAt: OLD, updatedAt: OLD, completedAt: OLD });
      await tx.insertTurn({ id: `${id}-u`, sessionId: `${id}-s`, startedAt: OLD, completedAt: OLD });
      for (let m = 0; m < rows; m += 1) {
        await tx.insertMessage({ id: `${id}-m${m}`, sessionId: `${id}-s`, turnId: `${id}-u`, authorType: "agent", type: "tool_execute", content: "tool", metadata: shellMetadata(`${id}-c${m}`, "x".repeat(2000)), toolCallId: `${id}-c${m}`, createdAt: OLD, updatedAt: OLD });
      }
    }
  });
}

const storedRows = () => db.query<{ id: string; metadata: string }>("select id, metadata from messages order by rowid");
const oneAtATime = (store: CompactionStore): CompactionStore => ({ ...store, readsBesideWriter: false });

/** Runs a pass on freshly seeded data, with the batch written beside the walk or not; returns what it did and the rows it left. */
async function passOn(tasks: Record<string, number>, besideWalk: boolean, extra: (store: CompactionStore) => Partial<CleanupPassOptions> = () => ({})) {
  await db.exec("truncate tasks, task_sessions, turns, messages, settings restart identity cascade");
  await seed(tasks);
  const pgStore = createPgCompactionStore(db);
  expect(pgStore.readsBesideWriter).toBe(true);
  const store = besideWalk ? pgStore : oneAtATime(pgStore);
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
        create trigger refuse_a_m5 before update of metadata on messages for each row when (old.id = 'a-m5') execute function refuse_a_m5()`);
    await refuse();
    const beside = await passOn(tasks, true);
    const alone = await passOn(tasks, false);
    await db.exec("drop trigger if exists refuse_a_m5 on messages");
    expect(beside.operation).toMatchObject({ changedMessages: 59, skipped: { write_refused: 1 } });
    expect(beside.operation).toEqual(alone.operation);
    expect(beside.rows).toEqual(alone.rows);
  });
});
