// An instance that has just started has asked for the worker lease and not
// heard back yet (its lease session is still connecting: slow under load).
// A command accepted in that moment must not be lost when this instance's
// own worker starts: the start's recovery would take it for work a dead
// process left behind.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { analyzeCompaction, getCompactionStatus } from "@/server/compaction/service";
import { createLogger } from "@/server/log";
import { openPostgres } from "@/server/runtime-postgres";
import { createRuntime, openRuntime, type OpenRuntime } from "@/server/runtime";
import { createEmptyPgDatabase, TEST_POSTGRES_URL } from "./test-db";
import { until, type Cleanups } from "./multi-instance-test-support";

const cleanups: Cleanups = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A runtime whose worker-lease session opens only when the test says so (every other session opens as usual). */
async function instanceWithHeldLease(): Promise<{ rt: OpenRuntime; openLease(): void }> {
  const db = await createEmptyPgDatabase();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pg-first-lease-"));
  cleanups.push(async () => {
    await db.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const env = { DATABASE_URL: db.url, DATA_DIR: dir, SESSION_IDLE_MINUTES: "0" };
  const log = createLogger({ level: "silent" });
  const opened = await openPostgres(db.url, env, log);
  if (!opened) throw new Error("the database did not open");
  let openLease!: () => void;
  const leaseOpens = new Promise<void>((resolve) => (openLease = resolve));
  const session = opened.db.session.bind(opened.db);
  opened.db.session = (purpose) => (purpose === "worker lease" ? leaseOpens.then(() => session(purpose)) : session(purpose));
  const created = createRuntime({ env, log, postgres: opened });
  await created.listening;
  const rt = openRuntime(created);
  if (!rt) throw new Error("the runtime did not open");
  cleanups.push(async () => {
    openLease();
    await rt.stop();
  });
  return { rt, openLease };
}

describe.skipIf(!TEST_POSTGRES_URL)("a command accepted before the instance's first lease answer", () => {
  it("[TPR-API-03] [#27] an analysis accepted while the first lease try is in flight runs here once the lease is held, not cancelled as interrupted", async () => {
    const { rt, openLease } = await instanceWithHeldLease();
    rt.start();
    // Accepted and relayed (the instance does not hold the lease yet), then the lease answers: this instance holds it.
    const { operationId } = await analyzeCompaction(rt, { age: { value: 2, unit: "weeks" } });
    expect(rt.compaction.isRunning()).toBe(false);
    openLease();
    await until(() => rt.compaction.isRunning(), "this instance holding the lease");
    await until(async () => (await getCompactionStatus(rt)).latestAnalysis?.id === operationId, "the analysis ending");
    expect((await getCompactionStatus(rt)).latestAnalysis).toMatchObject({ id: operationId, state: "succeeded" });
  }, 60_000);
});
