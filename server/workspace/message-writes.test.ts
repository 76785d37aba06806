import { afterEach, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "@/server/db/test-db";
import { AppError } from "@/server/errors";
import { appendMessage, replaceMessageMetadata, upsertMessage, type MessageInput } from "./message-writes";
import { createSqliteWorkspaceStore } from "@/server/workspace/sqlite-store";

let t: TestDb | undefined;
afterEach(() => t?.close());

function seedSession(db: TestDb): void {
  createSqliteWorkspaceStore(db.sqlite).insertTask({
    id: "t1",
    title: "Fix flaky test",
    state: "COMPLETED",
    createdAt: "2026-01-02T10:00:00Z",
    updatedAt: "2026-01-02T12:00:00+01:00",
    queuedForStep: false,
  });
  createSqliteWorkspaceStore(db.sqlite).insertSession({
    id: "s1",
    taskId: "t1",
    state: "COMPLETED",
    startedAt: "2026-01-02T10:00:00Z",
    updatedAt: "not a time",
    completedAt: null,
  });
  createSqliteWorkspaceStore(db.sqlite).insertTurn({ id: "u1", sessionId: "s1", startedAt: "2026-01-02T10:00:00Z", completedAt: null });
}

const base: MessageInput = {
  id: "m1",
  sessionId: "s1",
  turnId: "u1",
  authorType: "agent",
  type: "tool_execute",
  content: "Run tests",
  metadata: '{"z":1,"2":9007199254740993,"tool_call_id":"c1","n":1.10}',
  createdAt: "2026-01-02T10:05:00-03:30",
  updatedAt: "2026-01-02T10:05:00Z",
};

describe("workspace writes", () => {
  it("[TPR-ELIG-06] fills every _ms companion from the RFC 3339 parser, NULL for invalid text", () => {
    t = createTestDb();
    seedSession(t);
    appendMessage(createSqliteWorkspaceStore(t.sqlite), base);
    const task = t.sqlite.prepare("select created_at_ms, updated_at_ms, updated_at from tasks").get();
    expect(task).toEqual({
      created_at_ms: Date.UTC(2026, 0, 2, 10),
      updated_at_ms: Date.UTC(2026, 0, 2, 11),
      updated_at: "2026-01-02T12:00:00+01:00",
    });
    const session = t.sqlite.prepare("select updated_at, updated_at_ms, completed_at_ms from task_sessions").get();
    expect(session).toEqual({ updated_at: "not a time", updated_at_ms: null, completed_at_ms: null });
    const message = t.sqlite.prepare("select created_at_ms from messages").get();
    expect(message).toEqual({ created_at_ms: Date.UTC(2026, 0, 2, 13, 35) });
  });

  it("[TPR-RED-10] stores metadata byte-for-byte and mirrors tool_call_id", () => {
    t = createTestDb();
    seedSession(t);
    appendMessage(createSqliteWorkspaceStore(t.sqlite), base);
    const row = t.sqlite.prepare("select metadata, tool_call_id from messages where id = 'm1'").get();
    expect(row).toEqual({ metadata: base.metadata, tool_call_id: "c1" });
  });

  it("replacing metadata bumps updated_at and keeps tool_call_id in step", () => {
    t = createTestDb();
    seedSession(t);
    appendMessage(createSqliteWorkspaceStore(t.sqlite), base);
    replaceMessageMetadata(createSqliteWorkspaceStore(t.sqlite), { messageId: "m1", metadata: '{"tool_call_id":"c2","x":1e-7}', updatedAt: "2026-02-01T00:00:00Z" });
    const row = t.sqlite.prepare("select metadata, tool_call_id, updated_at, updated_at_ms from messages").get();
    expect(row).toEqual({
      metadata: '{"tool_call_id":"c2","x":1e-7}',
      tool_call_id: "c2",
      updated_at: "2026-02-01T00:00:00Z",
      updated_at_ms: Date.UTC(2026, 1, 1),
    });
  });

  it("rejects non-object metadata, unknown messages, duplicate ids and foreign turns", () => {
    t = createTestDb();
    seedSession(t);
    const code = (fn: () => unknown) => {
      try {
        fn();
      } catch (e) {
        return e instanceof AppError ? e.code : "other";
      }
      return "none";
    };
    expect(code(() => appendMessage(createSqliteWorkspaceStore(t!.sqlite), { ...base, metadata: "[1]" }))).toBe("invalid_request");
    expect(code(() => appendMessage(createSqliteWorkspaceStore(t!.sqlite), { ...base, metadata: "{oops" }))).toBe("invalid_request");
    expect(code(() => appendMessage(createSqliteWorkspaceStore(t!.sqlite), { ...base, turnId: "nope" }))).toBe("invalid_request");
    expect(code(() => appendMessage(createSqliteWorkspaceStore(t!.sqlite), { ...base, sessionId: "nope" }))).toBe("not_found");
    appendMessage(createSqliteWorkspaceStore(t.sqlite), base);
    expect(code(() => appendMessage(createSqliteWorkspaceStore(t!.sqlite), base))).toBe("conflict");
    expect(code(() => replaceMessageMetadata(createSqliteWorkspaceStore(t!.sqlite), { messageId: "x", metadata: "{}", updatedAt: "" }))).toBe("not_found");
    expect(t.sqlite.prepare("select count(*) as n from messages").get()).toEqual({ n: 1 });
  });

  it("upsert replaces an existing message in place and appends a new one", () => {
    t = createTestDb();
    seedSession(t);
    const first = upsertMessage(createSqliteWorkspaceStore(t.sqlite), base);
    const again = upsertMessage(createSqliteWorkspaceStore(t.sqlite), { ...base, content: "Run tests again", metadata: '{"a":[]}' });
    expect(again.rowid).toBe(first.rowid);
    upsertMessage(createSqliteWorkspaceStore(t.sqlite), { ...base, id: "m2" });
    const rows = t.sqlite.prepare("select id, content, metadata, tool_call_id from messages order by rowid").all();
    expect(rows).toEqual([
      { id: "m1", content: "Run tests again", metadata: '{"a":[]}', tool_call_id: null },
      { id: "m2", content: "Run tests", metadata: base.metadata, tool_call_id: "c1" },
    ]);
  });
});
