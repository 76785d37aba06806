import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "@/server/db/test-db";
import { manualClock } from "@/server/clock";
import { checkTaskEligibility } from "@/server/compaction/eligibility/eligibility";
import { createSqliteCompactionStore } from "@/server/compaction/store/sqlite-store";
import { exportTask } from "../export/export-task";
import { fingerprint } from "../fixture/test-support";
import { importFixture } from "../fixture/import-fixture";
import { DAY } from "./demo-time";
import { SCENARIOS } from "./scenarios";
import { DEMO_TASK_COUNT, planDemoWorkspace, seedDemoWorkspace, type DemoSeedResult } from "./seed";
import { createSqliteWorkspaceStore } from "@/server/workspace/sqlite-store";

const NOW = Date.UTC(2026, 10, 29, 12, 0, 0);
const SEED = 20260101;
let db: TestDb;
let result: DemoSeedResult;

beforeAll(async () => {
  db = createTestDb();
  result = await seedDemoWorkspace({ store: createSqliteWorkspaceStore(db.db), seed: SEED, nowMs: NOW });
});
afterAll(() => db.close());

const count = (sql: string, ...args: unknown[]) => (db.sqlite.prepare(sql).get(...args) as { n: number }).n;

describe("demo workspace", () => {
  it("is deterministic from the seed", async () => {
    const again = createTestDb();
    try {
      expect(await seedDemoWorkspace({ store: createSqliteWorkspaceStore(again.db), seed: SEED, nowMs: NOW })).toEqual(result);
      expect(fingerprint(again.sqlite)).toEqual(fingerprint(db.sqlite));
    } finally {
      again.close();
    }
    const other = planDemoWorkspace(SEED + 1, NOW).map((t) => t.id);
    expect(other).not.toEqual(planDemoWorkspace(SEED, NOW).map((t) => t.id));
  });

  it("holds ~200 tasks spread over the last 18 months and reports what it wrote", async () => {
    expect(result.tasks).toBe(DEMO_TASK_COUNT);
    expect(count("select count(*) n from tasks")).toBe(DEMO_TASK_COUNT);
    expect(count("select count(*) n from messages")).toBe(result.messages);
    expect(count("select coalesce(sum(length(cast(metadata as blob)) + length(cast(content as blob))), 0) n from messages")).toBe(result.bytes);
    expect(count("select count(*) n from tasks where created_at_ms < ?", NOW - 19 * 30 * DAY)).toBe(0);
    expect(count("select count(*) n from tasks where created_at_ms < ?", NOW - 365 * DAY)).toBeGreaterThan(40);
    expect(count("select count(*) n from tasks where created_at_ms > ?", NOW - 60 * DAY)).toBeGreaterThan(5);
  });

  it("[TPR-RED-09] puts every compactable kind on its message type, with realistic payloads", async () => {
    const onType = (type: string, kind: string) =>
      count("select count(*) n from messages where type = ? and json_extract(metadata, '$.normalized.kind') = ?", type, kind);
    for (const [type, kind] of [
      ["tool_execute", "shell_exec"],
      ["tool_read", "read_file"],
      ["tool_edit", "modify_file"],
      ["tool_search", "code_search"],
      ["tool_call", "http_request"],
      ["tool_call", "generic"],
    ] as const) {
      expect(onType(type, kind), `${kind} on ${type}`).toBeGreaterThan(5);
    }
    // multi-KB shell stdout, several mutations with diffs, file lists, bodies, MCP parts
    expect(count("select count(*) n from messages where length(json_extract(metadata, '$.normalized.shell_exec.output.stdout')) > 4096")).toBeGreaterThan(20);
    expect(count("select count(*) n from messages where json_array_length(metadata, '$.normalized.modify_file.mutations') >= 3 and metadata like '%@@ -%'")).toBeGreaterThan(5);
    expect(count("select count(*) n from messages where json_extract(metadata, '$.normalized.code_search.output.file_count') > 10")).toBeGreaterThan(5);
    expect(count("select count(*) n from messages where json_extract(metadata, '$.normalized.http_request.response.body') like '{\"data\":%'")).toBeGreaterThan(5);
    expect(count("select count(*) n from messages where length(json_extract(metadata, '$.normalized.read_file.output.content')) > 1000")).toBeGreaterThan(5);
    for (const part of ["text", "resource", "image"]) {
      expect(count("select count(*) n from messages, json_each(metadata, '$.normalized.generic.output.content') p where json_extract(p.value, '$.type') = ?", part)).toBeGreaterThan(0);
    }
    expect(count("select count(*) n from messages where json_type(metadata, '$.normalized.generic.output') = 'text'")).toBeGreaterThan(0);
  });

  it("[TPR-RED-11] [TPR-RED-12] [TPR-RED-13] includes never-compacted kinds, provenance and control tools", async () => {
    for (const kind of ["create_task", "subagent_task", "show_plan", "manage_todos", "misc"]) {
      expect(count("select count(*) n from messages where json_extract(metadata, '$.normalized.kind') = ?", kind), kind).toBeGreaterThan(0);
    }
    expect(count("select count(*) n from messages where json_type(metadata, '$.normalized.shell_exec.background_work') = 'object'")).toBeGreaterThan(0);
    expect(count("select count(*) n from messages where json_type(metadata, '$.normalized.generic.monitor') = 'object'")).toBeGreaterThan(0);
    expect(count("select count(*) n from messages where json_extract(metadata, '$.normalized.generic.name') in ('TodoWrite', 'ExitPlanMode', 'mcp__kandev__create_task')")).toBeGreaterThan(0);
    expect(count("select count(*) n from messages where type = 'tool_call' and json_extract(metadata, '$.normalized.kind') = 'shell_exec'")).toBeGreaterThan(0);
    for (const type of ["message", "thinking", "progress", "log", "status", "error", "content", "permission_request", "clarification_request", "agent_plan", "todo"]) {
      expect(count("select count(*) n from messages where type = ?", type), type).toBeGreaterThan(0);
    }
  });

  it("has a few multi-MB outputs (2-6 MB)", async () => {
    expect(count("select count(*) n from messages where length(metadata) between 2000000 and 6500000")).toBeGreaterThanOrEqual(4);
  });

  it("[TPR-ELIG-07] [TPR-ELIG-08] [TPR-ELIG-09] [TPR-ELIG-10] [TPR-ELIG-11] [TPR-ELIG-12] [TPR-ELIG-13] [TPR-ELIG-14] contains each realistic ineligible case", async () => {
    const old = NOW - 150 * DAY;
    const cases: Record<string, number> = {
      running_session: count("select count(*) n from task_sessions where state = 'RUNNING'"),
      waiting_for_input: count("select count(*) n from task_sessions where state = 'WAITING_FOR_INPUT'"),
      open_turn: count("select count(*) n from turns where completed_at is null"),
      queued_message: count("select count(*) n from queued_messages"),
      pending_permission: count("select count(*) n from messages where type = 'permission_request' and json_extract(metadata, '$.status') = 'pending'"),
      pending_clarification: count("select count(*) n from messages where type = 'clarification_request' and json_type(metadata, '$.status') is null"),
      live_run: count("select count(*) n from runs where state in ('RUNNING', 'QUEUED')"),
      queued_for_step: count("select count(*) n from tasks where queued_for_step = 1"),
      recent_activity: count("select count(*) n from tasks where created_at_ms < ? and updated_at_ms > ?", old, NOW - 7 * DAY),
      invalid_timestamp: count("select count(*) n from messages where updated_at_ms is null"),
      unknown_state: count(
        `select count(*) n from tasks t where t.state not in ('TODO','CREATED','SCHEDULING','IN_PROGRESS','REVIEW','BLOCKED','WAITING_FOR_INPUT','COMPLETED','FAILED','CANCELLED')
           or exists (select 1 from task_sessions s where s.task_id = t.id and s.state not in ('CREATED','STARTING','RUNNING','WAITING_FOR_INPUT','COMPLETED','FAILED','CANCELLED'))`,
      ),
      mixed_offsets: count("select count(*) n from tasks t join task_sessions s on s.task_id = t.id join messages m on m.session_id = s.id where t.updated_at like '%+14:00' and m.updated_at like '%-10:00'"),
    };
    expect(Object.keys(cases).sort()).toEqual(SCENARIOS.map((s) => s.name).sort());
    for (const [name, n] of Object.entries(cases)) expect(n, name).toBeGreaterThan(0);
  });

  it("reads like real agent work, not filler text", async () => {
    expect(count("select count(*) n from messages where content like '%lorem%' or metadata like '%lorem ipsum%'")).toBe(0);
    expect(count("select count(*) n from messages where metadata like '%/workspace/acme/%'")).toBeGreaterThan(1000);
  });

  it("[TPR-TX-09] a task with a multi-MB output exports and imports again byte-identically", async () => {
    const taskId = (
      db.sqlite
        .prepare("select s.task_id as id from messages m join task_sessions s on s.id = m.session_id order by length(m.metadata) desc limit 1")
        .get() as { id: string }
    ).id;
    const text = await exportTask(createSqliteWorkspaceStore(db.db), taskId);
    const copy = createTestDb();
    try {
      await importFixture(createSqliteWorkspaceStore(copy.db), { file: "demo-task.json", text });
      expect(await exportTask(createSqliteWorkspaceStore(copy.db), taskId)).toBe(text);
    } finally {
      copy.close();
    }
  });

  it("[TPR-ELIG-05] [TPR-ELIG-06] protected tasks are ineligible and ordinary old tasks eligible at a 3-month cutoff", async () => {
    const cutoffMs = NOW - 90 * DAY;
    const clock = manualClock(NOW);
    const reasons: Record<string, string> = {};
    let ordinaryOld = 0;
    const store = createSqliteCompactionStore(db.db);
    for (const task of planDemoWorkspace(SEED, NOW)) {
      const verdict = await checkTaskEligibility({ store, taskId: task.id, cutoffMs, clock, budgetMs: 60_000 });
      if (task.scenario) {
        reasons[task.scenario] = verdict.eligible ? "eligible" : verdict.reason;
      } else if (task.lastActivityMs < cutoffMs - 2 * DAY) {
        ordinaryOld++;
        expect(verdict, task.id).toMatchObject({ eligible: true });
      }
    }
    expect(ordinaryOld).toBeGreaterThan(100);
    expect(reasons).toEqual({
      running_session: "live_task",
      waiting_for_input: "live_task",
      open_turn: "open_turn",
      queued_message: "queued_message",
      pending_permission: "pending_input",
      pending_clarification: "pending_input",
      live_run: "live_run",
      queued_for_step: "queued_admission",
      recent_activity: "recent_activity",
      invalid_timestamp: "invalid_timestamp",
      unknown_state: "unknown_state",
      mixed_offsets: "recent_activity",
    });
  });
});
