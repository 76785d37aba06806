// `compaction hold` (and, below, `compaction restore`) through the real bin
// on a temp database: the same verbs as the task routes, audited as `cli`.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { restoreOperationSchema, restoreReportSchema, taskHoldSchema } from "@/lib/task-compaction/api";
import { createTestDb, type TestDb } from "@/server/db/test-db";
import { seedOldTask } from "@/server/compaction/test-support";
import { auditPage } from "./test-support/audit-trail";
import { jsonOf, runCompactionCli } from "./test-support/run-cli";
import { EXIT } from "./exit-codes";
import { describeBytes } from "./status-lines";

// Each command is a process start (tsx + the server graph): generous timeouts for a loaded machine.
describe("compaction hold (the real bin)", { timeout: 120_000 }, () => {
  let db: TestDb;
  const cli = (args: string[]) => runCompactionCli(db.file, args);
  beforeEach(() => {
    db = createTestDb("cli-hold-");
    seedOldTask(db.sqlite, "t1");
  });
  afterEach(() => db.close());

  it("--on holds the task as the command line, a bare call shows it, --off releases it; each change audited", async () => {
    const on = await cli(["hold", "--task", "t1", "--on", "--json"]);
    expect(on.status).toBe(EXIT.done);
    expect(taskHoldSchema.parse(jsonOf(on))).toMatchObject({ taskId: "t1", held: true, heldBy: "cli", restoreId: null });
    const shown = await cli(["hold", "--task", "t1"]);
    expect(shown.status).toBe(EXIT.done);
    expect(shown.stdout).toMatch(/^task t1: held since \S+ by the command line \(compaction never touches it\)\n$/);
    const off = await cli(["hold", "--task", "t1", "--off"]);
    expect(off.stdout).toContain("task t1: not held");
    const entries = (await auditPage(db.sqlite)).entries.map((e) => [e.kind, e.actor, e.detail]);
    expect(entries).toEqual([
      ["task.hold_released", "cli", { taskId: "t1" }],
      ["task.hold_set", "cli", { taskId: "t1" }],
    ]);
  });

  it("an unknown task, a missing --task or both switches exit 2 and change nothing", async () => {
    const [missing, noTask, both] = await Promise.all([cli(["hold", "--task", "nope", "--on", "--json"]), cli(["hold", "--on"]), cli(["hold", "--task", "t1", "--on", "--off"])]);
    expect(missing.status).toBe(EXIT.usage);
    expect(jsonOf(missing)).toMatchObject({ error: { code: "not_found" } });
    expect(noTask.status).toBe(EXIT.usage);
    expect(both.status).toBe(EXIT.usage);
    expect(db.sqlite.prepare("select count(*) as n from task_holds").get()).toEqual({ n: 0 });
  });
});

describe("compaction restore (the real bin)", { timeout: 180_000 }, () => {
  let db: TestDb;
  const cli = (args: string[]) => runCompactionCli(db.file, args);
  beforeEach(() => {
    db = createTestDb("cli-restore-");
    seedOldTask(db.sqlite, "t1", 4);
    seedOldTask(db.sqlite, "t2", 4);
  });
  afterEach(() => db.close());
  const marked = (taskId: string) =>
    (
      db.sqlite
        .prepare("select count(*) as n from messages m join task_sessions s on s.id = m.session_id where s.task_id = ? and m.metadata like '%\"payload_retention\"%'")
        .get(taskId) as { n: number }
    ).n;

  it("--dry-run reports per message and changes nothing; the restore brings the task back, on hold, audited as cli; --no-hold leaves it off hold", async () => {
    const originals = db.sqlite.prepare("select id, metadata from messages order by rowid").all();
    const enabled = await cli(["enable", "--backup", "--until-done", "--outside-window"]);
    expect(enabled.status, enabled.stderr).toBe(EXIT.done);
    expect(marked("t1")).toBe(4);

    const dry = await cli(["restore", "--task", "t1", "--dry-run"]);
    expect(dry.status, dry.stderr).toBe(EXIT.done);
    expect(dry.stdout).toContain("dry run: nothing was changed");
    const dryJson = restoreReportSchema.parse(jsonOf(await cli(["restore", "--task", "t1", "--dry-run", "--json"])));
    // The payload size in the cards' unit system, with the exact count beside it (#30).
    expect(dry.stdout).toMatch(/^task t1: 4 messages restorable from workspace-\S+\.db \(taken \S+, the compaction preparation's backup\), payload \d[\d.]* (B|kB|MB) \([\d,]+ bytes\)\n/);
    expect(dry.stdout).toContain(`payload ${describeBytes(dryJson.restorableBytes)}\n`);
    expect(dryJson.counts).toMatchObject({ restorable: 4, not_in_backup: 0, changed_since_compaction: 0 });
    expect(marked("t1")).toBe(4);

    const run = await cli(["restore", "--task", "t1", "--json"]);
    expect(run.status, run.stderr).toBe(EXIT.done);
    expect(restoreOperationSchema.parse(jsonOf(run))).toMatchObject({ taskId: "t1", state: "succeeded", restoredMessages: 4, hold: true, actor: "cli" });
    expect(marked("t1")).toBe(0);
    expect(marked("t2")).toBe(4);
    const restored = db.sqlite.prepare("select id, metadata from messages order by rowid").all() as Array<{ id: string }>;
    expect(restored.filter((row) => row.id.startsWith("t1-"))).toEqual((originals as Array<{ id: string }>).filter((row) => row.id.startsWith("t1-")));
    expect((await cli(["hold", "--task", "t1"])).stdout).toMatch(/held since \S+ by the command line, set by restore \S+/);

    const t2 = await cli(["restore", "--task", "t2", "--no-hold"]);
    expect(t2.status, t2.stderr).toBe(EXIT.done);
    expect(t2.stdout).toContain("4 messages restored");
    expect(t2.stdout).toContain("the task was left off hold");
    expect(db.sqlite.prepare("select task_id from task_holds").all()).toEqual([{ task_id: "t1" }]);

    const entries = (await auditPage(db.sqlite)).entries.filter((e) => e.kind.startsWith("task.")).map((e) => [e.kind, e.actor, e.detail.taskId, e.detail.restoredMessages]);
    expect(entries).toEqual([
      ["task.payloads_restored", "cli", "t2", 4],
      ["task.payloads_restored", "cli", "t1", 4],
      ["task.hold_set", "cli", "t1", undefined],
    ]);
  });

  it("nothing removed yet, an unknown task or a bad backup name: refused with its code and nothing changes", async () => {
    const [none, unknown, badName] = await Promise.all([
      cli(["restore", "--task", "t1", "--json"]),
      cli(["restore", "--task", "nope", "--dry-run", "--json"]),
      cli(["restore", "--task", "t1", "--backup", "../workspace.db", "--json"]),
    ]);
    expect(none.status).toBe(EXIT.refused);
    expect(jsonOf(none)).toMatchObject({ error: { code: "no_restore_backup" } });
    expect(unknown.status).toBe(EXIT.usage);
    expect(jsonOf(unknown)).toMatchObject({ error: { code: "not_found" } });
    expect(badName.status).toBe(EXIT.usage);
    expect(jsonOf(badName)).toMatchObject({ error: { code: "invalid_request" } });
    expect(db.sqlite.prepare("select count(*) as n from payload_restores").get()).toEqual({ n: 0 });
    expect(db.sqlite.prepare("select count(*) as n from task_holds").get()).toEqual({ n: 0 });
  });
});
