import { expect, it } from "vitest";
import { describeEachEngine, type EngineDb } from "@/server/engines-test-support";
import { AppError } from "@/server/errors";
import { appendMessage, replaceMessageMetadata, upsertMessage, type MessageInput } from "./message-writes";

async function seedSession(db: EngineDb): Promise<void> {
  await db.workspace().insertTask({
    id: "t1",
    title: "Fix flaky test",
    state: "COMPLETED",
    createdAt: "2026-01-02T10:00:00Z",
    updatedAt: "2026-01-02T12:00:00+01:00",
    queuedForStep: false,
  });
  await db.workspace().insertSession({
    id: "s1",
    taskId: "t1",
    state: "COMPLETED",
    startedAt: "2026-01-02T10:00:00Z",
    updatedAt: "not a time",
    completedAt: null,
  });
  await db.workspace().insertTurn({ id: "u1", sessionId: "s1", startedAt: "2026-01-02T10:00:00Z", completedAt: null });
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

describeEachEngine("workspace writes", ({ db }) => {
  it("[TPR-ELIG-06] fills every _ms companion from the RFC 3339 parser, NULL for invalid text", async () => {
    await seedSession(db());
    await appendMessage(db().workspace(), base);
    const task = (await db().rows("select created_at_ms, updated_at_ms, updated_at from tasks"))[0];
    expect(task).toEqual({
      created_at_ms: Date.UTC(2026, 0, 2, 10),
      updated_at_ms: Date.UTC(2026, 0, 2, 11),
      updated_at: "2026-01-02T12:00:00+01:00",
    });
    const session = (await db().rows("select updated_at, updated_at_ms, completed_at_ms from task_sessions"))[0];
    expect(session).toEqual({ updated_at: "not a time", updated_at_ms: null, completed_at_ms: null });
    const message = (await db().rows("select created_at_ms from messages"))[0];
    expect(message).toEqual({ created_at_ms: Date.UTC(2026, 0, 2, 13, 35) });
  });

  it("[TPR-RED-10] stores metadata byte-for-byte and mirrors tool_call_id", async () => {
    await seedSession(db());
    await appendMessage(db().workspace(), base);
    const row = (await db().rows("select metadata, tool_call_id from messages where id = 'm1'"))[0];
    expect(row).toEqual({ metadata: base.metadata, tool_call_id: "c1" });
  });

  it("replacing metadata bumps updated_at and keeps tool_call_id in step", async () => {
    await seedSession(db());
    await appendMessage(db().workspace(), base);
    await replaceMessageMetadata(db().workspace(), { messageId: "m1", metadata: '{"tool_call_id":"c2","x":1e-7}', updatedAt: "2026-02-01T00:00:00Z" });
    const row = (await db().rows("select metadata, tool_call_id, updated_at, updated_at_ms from messages"))[0];
    expect(row).toEqual({
      metadata: '{"tool_call_id":"c2","x":1e-7}',
      tool_call_id: "c2",
      updated_at: "2026-02-01T00:00:00Z",
      updated_at_ms: Date.UTC(2026, 1, 1),
    });
  });

  it("rejects non-object metadata, unknown messages, duplicate ids and foreign turns", async () => {
    await seedSession(db());
    const code = async (fn: () => Promise<unknown>) => {
      try {
        await fn();
      } catch (e) {
        return e instanceof AppError ? e.code : "other";
      }
      return "none";
    };
    expect(await code(() => appendMessage(db().workspace(), { ...base, metadata: "[1]" }))).toBe("invalid_request");
    expect(await code(() => appendMessage(db().workspace(), { ...base, metadata: "{oops" }))).toBe("invalid_request");
    expect(await code(() => appendMessage(db().workspace(), { ...base, turnId: "nope" }))).toBe("invalid_request");
    expect(await code(() => appendMessage(db().workspace(), { ...base, sessionId: "nope" }))).toBe("not_found");
    await appendMessage(db().workspace(), base);
    expect(await code(() => appendMessage(db().workspace(), base))).toBe("conflict");
    expect(await code(() => replaceMessageMetadata(db().workspace(), { messageId: "x", metadata: "{}", updatedAt: "" }))).toBe("not_found");
    expect((await db().rows("select count(*) as n from messages"))[0]).toEqual({ n: 1 });
  });

  it("upsert replaces an existing message in place and appends a new one", async () => {
    await seedSession(db());
    const first = await upsertMessage(db().workspace(), base);
    const again = await upsertMessage(db().workspace(), { ...base, content: "Run tests again", metadata: '{"a":[]}' });
    expect(again.rowid).toBe(first.rowid);
    await upsertMessage(db().workspace(), { ...base, id: "m2" });
    const rows = await db().rows("select id, content, metadata, tool_call_id from messages order by rowid");
    expect(rows).toEqual([
      { id: "m1", content: "Run tests again", metadata: '{"a":[]}', tool_call_id: null },
      { id: "m2", content: "Run tests", metadata: base.metadata, tool_call_id: "c1" },
    ]);
  });
});
