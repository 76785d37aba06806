import { afterEach, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "@/server/db/test-db";
import { AppError } from "@/server/errors";
import { sampleFixture } from "../fixture/test-support";
import { importFixture } from "../fixture/import-fixture";
import { replaceMessageMetadata } from "../message-writes";
import { listTasks, readTaskConversation } from "./tasks";
import { createSqliteWorkspaceStore } from "@/server/workspace/sqlite-store";

let t: TestDb | undefined;
afterEach(() => t?.close());

async function setup(): Promise<TestDb> {
  t = createTestDb();
  await importFixture(createSqliteWorkspaceStore(t.db), { file: "in.json", text: sampleFixture() });
  return t;
}

const COMPACTED =
  '{"tool_call_id":"c1","title":"npm test","normalized":{"kind":"shell_exec","shell_exec":{"command":"npm test","work_dir":"/repo",' +
  '"output":{"exit_code":2,"truncated":true}}},"payload_retention":{"version":1,"removed_at":"2026-05-01T03:00:00Z",' +
  '"removed_fields":["normalized.shell_exec.output.stdout"],"removed_bytes":4096}}';

describe("conversation read verbs", () => {
  it("lists tasks newest first with message counts", async () => {
    const db = await setup();
    const list = await listTasks(createSqliteWorkspaceStore(db.db), { limit: 10, offset: 0 });
    expect(list.total).toBe(2);
    expect(list.tasks.map((task) => task.id).sort()).toEqual(["t1", "t2"]);
    expect(list.tasks.find((task) => task.id === "t1")).toMatchObject({ title: "Fix the flaky login test", messageCount: 2 });
  });

  it("reads a task's messages in order with tool summaries and never the output body", async () => {
    const db = await setup();
    const view = await readTaskConversation(createSqliteWorkspaceStore(db.db), "t1");
    expect(view.task).toMatchObject({ id: "t1", state: "COMPLETED" });
    expect(view.messages.map((m) => m.id)).toEqual(["m1", "m2"]);
    expect(view.messages[0]!.tool).toBeNull();
    expect(view.messages[1]!.tool).toMatchObject({ kind: "shell_exec", command: "npm test", exitCode: 0, removedAt: null });
    expect(JSON.stringify(view)).not.toContain("ok\\n");
    expect(view.truncated).toBe(false);
  });

  it("[TPR-TX-07] a compacted message carries its removal time so the view never offers the removed output", async () => {
    const db = await setup();
    await replaceMessageMetadata(createSqliteWorkspaceStore(db.db), { messageId: "m2", metadata: COMPACTED, updatedAt: "2026-05-01T03:00:00Z" });
    const tool = (await readTaskConversation(createSqliteWorkspaceStore(db.db), "t1")).messages[1]!.tool;
    expect(tool).toMatchObject({ command: "npm test", exitCode: 2, removedAt: "2026-05-01T03:00:00Z" });
  });

  it("answers not_found for an unknown task", async () => {
    const db = await setup();
    await expect(readTaskConversation(createSqliteWorkspaceStore(db.db), "missing")).rejects.toThrow(AppError);
  });
});
