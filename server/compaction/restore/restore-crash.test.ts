// A per-task restore killed with SIGKILL (issue 29's acceptance): the
// process running it dies between batches or inside a batch's writer
// transaction (a row written, not committed). Every row is then either as
// compaction left it or exactly its bytes before compaction, never half
// written; the record's counts are those of the rows restored (committed
// with them); and running the restore again finishes the task, reporting
// the killed run as interrupted. On both engines: on PostgreSQL the killed
// session's transaction and its maintenance guard (a session advisory lock)
// end with its connection, and pg_restore's pipe with the process.
import { spawn } from "node:child_process";
import pg from "pg";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PUT as putPolicy } from "@/app/api/v1/system/database/tool-payload-retention/route";
import { openDatabase } from "@/server/db/client";
import { TEST_POSTGRES_URL } from "@/server/db/pg/test-db";
import { AS_ADMIN, apiRequest, setUpEngineRouteTestEnv, type EngineRouteTestEnv } from "@/server/http/route-test-support";
import { createLogger } from "@/server/log";
import { createMigratedRuntime, openRuntime } from "@/server/runtime";
import { importFixture } from "@/server/workspace/fixture/import-fixture";
import { reduceToolPayload } from "../reducer/reducer";
import { shellMetadata } from "../test-support";
import { readRestoreSummary, startPayloadRestore } from "./service";

const OLD = "2024-01-02T10:00:00Z";
const ROWS = 40;

function fixture(): string {
  const task = (id: string) => {
    const messages = Array.from(
      { length: ROWS },
      (_, i) => `{ "id": "${id}-m${i}", "turnId": "${id}-u", "authorType": "agent", "type": "tool_execute", "content": "tool",
        "metadata": ${shellMetadata(`${id}-c${i}`, `line ${i} of ${id}\\n`.repeat(200))}, "createdAt": "${OLD}", "updatedAt": "${OLD}" }`,
    );
    return `{ "id": "${id}", "title": "t", "state": "COMPLETED", "createdAt": "${OLD}", "updatedAt": "${OLD}", "queuedForStep": false,
      "sessions": [ { "id": "${id}-s", "state": "COMPLETED", "startedAt": "${OLD}", "updatedAt": "${OLD}", "completedAt": "${OLD}",
        "turns": [ { "id": "${id}-u", "startedAt": "${OLD}", "completedAt": "${OLD}" } ], "messages": [ ${messages.join(", ")} ],
        "queuedMessages": [], "runs": [] } ] }`;
  };
  return `{ "format": "workspace-fixture", "version": 1, "tasks": [ ${task("tk")}, ${task("other")} ] }`;
}

/** Runs the child until `line` appears on its stdout, then SIGKILLs it; resolves with what it printed. */
function runChildUntil(env: Record<string, string>, mode: "between-batches" | "mid-batch", line: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", "--conditions=react-server", "scripts/test-support/restore-child.ts", "tk", mode], {
      cwd: process.cwd(),
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      if (line.test(out)) child.kill("SIGKILL");
    });
    child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
    child.on("exit", (_code, signal) => {
      if (signal === "SIGKILL") resolve(out);
      else reject(new Error(`child exited without being killed: ${out} ${err}`));
    });
  });
}

type Row = { id: string; metadata: string };
type Seen = { rows: Row[]; records: Array<{ state: string; restored: number }>; held: Array<{ task_id: string }> };

/** What the database holds now, read on a connection of its own (the runtime is stopped). */
async function readBack(engine: "sqlite" | "postgres", url: string): Promise<Seen> {
  const queries = {
    rows: "select id, metadata from messages",
    records: "select state, restored_messages as restored from payload_restores",
    held: "select task_id from task_holds",
  };
  if (engine === "sqlite") {
    const { sqlite } = openDatabase({ file: url.slice("file:".length), readonly: true, migrate: false });
    try {
      return {
        rows: sqlite.prepare(queries.rows).all() as Row[],
        records: (sqlite.prepare(queries.records).all() as Array<{ state: string; restored: number }>).map((r) => ({ state: r.state, restored: Number(r.restored) })),
        held: sqlite.prepare(queries.held).all() as Array<{ task_id: string }>,
      };
    } finally {
      sqlite.close();
    }
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return {
      rows: (await client.query<Row>(queries.rows)).rows,
      records: (await client.query<{ state: string; restored: number | string }>(queries.records)).rows.map((r) => ({ state: r.state, restored: Number(r.restored) })),
      held: (await client.query<{ task_id: string }>(queries.held)).rows,
    };
  } finally {
    await client.end();
  }
}

/** PostgreSQL: waits for the state where the killed process's sessions have ended (its transaction rolled back, its guard released). */
async function sessionsEnded(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    while ((await client.query("select 1 from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()")).rowCount !== 0) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  } finally {
    await client.end();
  }
}

for (const { engine, skip } of [
  { engine: "sqlite" as const, skip: false },
  { engine: "postgres" as const, skip: !TEST_POSTGRES_URL },
]) {
  describe.skipIf(skip)(`per-task restore under SIGKILL [${engine}]`, () => {
    let env: EngineRouteTestEnv;
    let childEnv: Record<string, string>;
    let originals: Map<string, string>;
    beforeEach(async () => {
      env = await setUpEngineRouteTestEnv(engine, "restore-crash-");
      const target = env.rt.target;
      const url = target.engine === "sqlite" ? `file:${target.file}` : target.engine === "postgres" ? target.url : "";
      childEnv = { DATABASE_URL: url, ...(engine === "postgres" ? { DATA_DIR: env.dir } : {}) };
      await importFixture(env.rt.stores.workspace, { file: "crash.json", text: fixture() });
      originals = new Map((await env.sql.all<Row>("select id, metadata from messages")).map((r) => [r.id, r.metadata]));
      // Enable with a preparation backup: the first pass compacts both tasks.
      const put = await putPolicy(
        apiRequest("PUT", "/api/v1/system/database/tool-payload-retention", AS_ADMIN, { policy: { enabled: true, age: { value: 1, unit: "weeks" } }, expectedRevision: 0, preparation: "backup" }),
      );
      expect(put.status).toBe(200);
      await env.rt.compaction.idle();
      await env.rt.compaction.idle();
      await env.rt.stop();
    });
    afterEach(() => env.dispose());

    /** Each row: compacted (exactly the reducer's output for its original) or restored (exactly its original). */
    async function inspect() {
      const seen = await readBack(engine, childEnv.DATABASE_URL!);
      let restored = 0;
      expect(seen.rows).toHaveLength(originals.size);
      for (const row of seen.rows) {
        const original = originals.get(row.id)!;
        if (row.metadata === original) {
          restored += 1;
          expect(row.id.startsWith("tk-"), row.id).toBe(true);
          continue;
        }
        const marker = JSON.parse(row.metadata).payload_retention as { removed_at: string };
        const reduced = reduceToolPayload({ type: "tool_execute", metadata: original, removedAt: marker.removed_at });
        expect(reduced.outcome === "changed" && reduced.metadata, row.id).toBe(row.metadata);
      }
      return { restored, records: seen.records, held: seen.held };
    }

    async function rerun() {
      const rt = openRuntime(await createMigratedRuntime({ env: childEnv, log: createLogger({ level: "silent" }) }));
      if (!rt) throw new Error("did not open");
      try {
        const before = await readRestoreSummary(rt, "tk");
        // The killed run lost its runner: it shows as interrupted.
        expect(before.latest).toMatchObject({ state: "failed", errorCode: "interrupted" });
        const { done } = await startPayloadRestore(rt, { taskId: "tk", body: {}, actor: "cli" });
        await done;
        return (await readRestoreSummary(rt, "tk")).latest;
      } finally {
        await rt.stop();
      }
    }

    for (const { mode, line } of [
      { mode: "between-batches" as const, line: /between-batches\n/ },
      { mode: "mid-batch" as const, line: /mid-batch\n/ },
    ]) {
      it(`killed ${mode === "mid-batch" ? "inside a batch's writer transaction" : "between two batches"}: no half-written row, counts match the rows, a rerun finishes`, async () => {
        const out = await runChildUntil(childEnv, mode, line);
        if (engine === "postgres") await sessionsEnded(childEnv.DATABASE_URL!);
        const commits = (out.match(/^batch 2$/gm) ?? []).length;
        const after = await inspect();
        // The hold committed with the record, before any row.
        expect(after.held).toEqual([{ task_id: "tk" }]);
        expect(after.records).toHaveLength(1);
        expect(after.records[0]!.state).toBe("running");
        // Counts are committed with their rows: the record says exactly what the rows say.
        expect(after.records[0]!.restored).toBe(after.restored);
        // Two rows per batch: three batches committed, or two and the third's written row rolled back with its transaction.
        expect(commits).toBe(mode === "mid-batch" ? 2 : 3);
        expect(after.restored).toBe(2 * commits);

        const latest = await rerun();
        expect(latest).toMatchObject({ state: "succeeded", restoredMessages: ROWS - after.restored, skipped: { not_compacted: after.restored } });
        const final = await inspect();
        expect(final.restored).toBe(ROWS);
        expect(final.records.map((r) => r.state).sort()).toEqual(["failed", "succeeded"]);
        // A child process boots tsx: generous on two loaded cores.
      }, 180_000);
    }
  });
}
