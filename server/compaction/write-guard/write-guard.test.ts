import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "@/server/db/test-db";
import { AppError } from "@/server/errors";
import { appendMessage, replaceMessageMetadata, upsertMessage, type MessageInput } from "@/server/workspace/message-writes";
import { reduceToolPayload } from "../reducer/reducer";
import { assertToolCallNotReplayed, guardReplacementMetadata, hasRemovalMarker, readRemovalMarker } from "./write-guard";
import { createSqliteWorkspaceStore } from "@/server/workspace/sqlite-store";

const AT = "2026-06-01T00:00:00.000Z";
const BIG = "o".repeat(3000);

const shellMeta = (stdout: string, extra = "") =>
  `{"tool_call_id":"c1","title":"npm test","n":9007199254740993,"normalized":{"kind":"shell_exec","shell_exec":{"command":"npm test","output":{"exit_code":0,"stdout":"${stdout}","stderr":"err"}}}${extra}}`;

function compacted(metadata: string): string {
  const result = reduceToolPayload({ type: "tool_execute", metadata, removedAt: AT });
  if (result.outcome !== "changed") throw new Error("expected a change");
  return result.metadata;
}

async function expectCode(fn: () => unknown, code: string) {
  try {
    await fn();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe(code);
    return;
  }
  throw new Error(`expected AppError ${code}`);
}

describe("guardReplacementMetadata (pure)", () => {
  it("[TPR-TX-04] a row without a stored marker takes the incoming metadata as is", async () => {
    const incoming = shellMeta(BIG, ',"status":"done"');
    expect(guardReplacementMetadata({ type: "tool_execute", stored: shellMeta("old"), incoming })).toBe(incoming);
  });

  it("[TPR-TX-04] a stored marker is kept verbatim and the removed fields are stripped from the incoming text", async () => {
    const stored = compacted(shellMeta(BIG));
    const marker = readRemovalMarker(stored);
    const incoming = shellMeta(BIG, ',"status":"done","result":"late result"');
    const written = guardReplacementMetadata({ type: "tool_execute", stored, incoming });
    expect(written).toBe(
      `{"tool_call_id":"c1","title":"npm test","n":9007199254740993,"normalized":{"kind":"shell_exec","shell_exec":{"command":"npm test","output":{"exit_code":0}}},"status":"done","payload_retention":${marker!.text}}`,
    );
  });

  it("[TPR-TX-04] a client-sent marker is not trusted: it is dropped and the stored one kept", async () => {
    const stored = compacted(shellMeta(BIG));
    const storedMarker = readRemovalMarker(stored)!.text;
    const forged = `,"payload_retention":{"version":1,"removed_at":"2000-01-01T00:00:00Z","removed_fields":[],"removed_bytes":1}`;
    const written = guardReplacementMetadata({ type: "tool_execute", stored, incoming: shellMeta(BIG, forged) });
    expect(written.match(/payload_retention/g)).toHaveLength(1);
    expect(readRemovalMarker(written)!.text).toBe(storedMarker);
    expect(written).not.toContain(BIG);
  });

  it("[TPR-TX-04] repeated keys, an emptied object and an unreadable stored marker still strip every payload copy", async () => {
    const stored = '{"normalized":{"kind":"shell_exec","shell_exec":{}},"payload_retention":"garbled"}';
    const incoming = `{"result":"${BIG}","result":"${BIG}"}`;
    expect(guardReplacementMetadata({ type: "tool_execute", stored, incoming })).toBe('{"payload_retention":"garbled"}');
    const dup = `{"normalized":{"kind":"shell_exec","shell_exec":{"output":{"stdout":"${BIG}"},"output":{"stdout":"${BIG}","x":1}}},"k":2}`;
    expect(guardReplacementMetadata({ type: "tool_execute", stored: compacted(shellMeta(BIG)), incoming: dup })).not.toContain(BIG);
    await expectCode(() => guardReplacementMetadata({ type: "tool_execute", stored: compacted(shellMeta(BIG)), incoming: "[]" }), "invalid_request");
  });

  it("[TPR-TX-05] creating a tool call whose id belongs to a compacted row is refused; other ids are normal", async () => {
    await expectCode(() => assertToolCallNotReplayed({ toolCallId: "c1", existing: [shellMeta("x"), compacted(shellMeta(BIG))] }), "tool_call_replay_refused");
    expect(() => assertToolCallNotReplayed({ toolCallId: "c1", existing: [shellMeta(BIG)] })).not.toThrow();
    expect(() => assertToolCallNotReplayed({ toolCallId: null, existing: [compacted(shellMeta(BIG))] })).not.toThrow();
    expect(hasRemovalMarker('{"a":"payload_retention"}')).toBe(false);
  });
});

describe("message writes with the guard wired in", () => {
  let db: TestDb;
  const message = (over: Partial<MessageInput> = {}): MessageInput => ({
    id: "m1",
    sessionId: "s1",
    turnId: "u1",
    authorType: "agent",
    type: "tool_execute",
    content: "Run tests",
    metadata: shellMeta(BIG),
    createdAt: "2026-01-02T10:05:00Z",
    updatedAt: "2026-01-02T10:05:00Z",
    ...over,
  });
  const stored = (id = "m1") => db.sqlite.prepare("SELECT metadata FROM messages WHERE id = ?").pluck().get(id) as string;
  // What a cleanup batch does: write the reduced text only if the row still holds what it read.
  const cleanupRow = (id: string, observed: string) => {
    const result = reduceToolPayload({ type: "tool_execute", metadata: observed, removedAt: AT });
    if (result.outcome !== "changed") throw new Error("expected a change");
    return db.sqlite
      .transaction(() => db.sqlite.prepare("UPDATE messages SET metadata = ? WHERE id = ? AND metadata = ?").run(result.metadata, id, observed).changes)
      .immediate();
  };

  beforeEach(async () => {
    db = createTestDb("ws-write-guard-");
    for (const [task, session] of [
      ["t1", "s1"],
      ["t1", "s2"],
      ["t2", "s3"],
    ] as const) {
      if (session !== "s2") {
        await createSqliteWorkspaceStore(db.db).insertTask({ id: task, title: "T", state: "COMPLETED", createdAt: "2026-01-01T00:00:00Z", updatedAt: "2026-01-01T00:00:00Z", queuedForStep: false });
      }
      await createSqliteWorkspaceStore(db.db).insertSession({ id: session, taskId: task, state: "COMPLETED", startedAt: null, updatedAt: "2026-01-01T00:00:00Z", completedAt: null });
    }
    await createSqliteWorkspaceStore(db.db).insertTurn({ id: "u1", sessionId: "s1", startedAt: "2026-01-02T10:00:00Z", completedAt: "2026-01-02T10:10:00Z" });
  });
  afterEach(() => db.close());

  it("[TPR-TX-04] race: a stale foreground replacement after cleanup keeps the marker and the payload stays removed", async () => {
    await appendMessage(createSqliteWorkspaceStore(db.db), message());
    const staleCopy = stored(); // foreground read before cleanup
    expect(cleanupRow("m1", staleCopy)).toBe(1);
    const marker = readRemovalMarker(stored())!.text;
    await replaceMessageMetadata(createSqliteWorkspaceStore(db.db), {
      messageId: "m1",
      metadata: staleCopy.replace('"title":"npm test"', '"title":"npm test (renamed)"'),
      updatedAt: "2026-01-02T11:00:00Z",
    });
    const after = stored();
    expect(after).not.toContain(BIG);
    expect(readRemovalMarker(after)!.text).toBe(marker);
    expect(after).toContain('"title":"npm test (renamed)"');
    expect(after).toContain("9007199254740993");
  });

  it("[TPR-TX-04] race: a foreground commit before cleanup's write keeps the new payload (cleanup's read is stale)", async () => {
    await appendMessage(createSqliteWorkspaceStore(db.db), message());
    const cleanupRead = stored();
    const fresh = shellMeta(`${BIG}-fresh`);
    await replaceMessageMetadata(createSqliteWorkspaceStore(db.db), { messageId: "m1", metadata: fresh, updatedAt: "2026-01-02T11:00:00Z" });
    expect(cleanupRow("m1", cleanupRead)).toBe(0);
    expect(stored()).toBe(fresh);
    expect(hasRemovalMarker(stored())).toBe(false);
  });

  it("[TPR-TX-04] the upsert (fallback create / turn recovery) path keeps the marker too", async () => {
    await appendMessage(createSqliteWorkspaceStore(db.db), message());
    cleanupRow("m1", stored());
    await upsertMessage(createSqliteWorkspaceStore(db.db), message({ content: "Run tests again", updatedAt: "2026-01-02T12:00:00Z" }));
    const row = db.sqlite.prepare("SELECT content, metadata, tool_call_id FROM messages WHERE id = 'm1'").get() as { content: string; metadata: string; tool_call_id: string };
    expect(row.content).toBe("Run tests again");
    expect(row.metadata).not.toContain(BIG);
    expect(hasRemovalMarker(row.metadata)).toBe(true);
    expect(row.tool_call_id).toBe("c1");
  });

  it("[TPR-TX-05] replaying a compacted tool call as a new message is refused in any session of the task; new calls are normal", async () => {
    await appendMessage(createSqliteWorkspaceStore(db.db), message());
    cleanupRow("m1", stored());
    await expectCode(() => appendMessage(createSqliteWorkspaceStore(db.db), message({ id: "m2" })), "tool_call_replay_refused");
    await expectCode(() => upsertMessage(createSqliteWorkspaceStore(db.db), message({ id: "m3", sessionId: "s2", turnId: null })), "tool_call_replay_refused");
    expect(db.sqlite.prepare("SELECT count(*) FROM messages").pluck().get()).toBe(1);
    // A new tool call after resumption, or the same id in another task, is an ordinary message.
    await appendMessage(createSqliteWorkspaceStore(db.db), message({ id: "m4", metadata: shellMeta(BIG).replace('"c1"', '"c2"') }));
    await appendMessage(createSqliteWorkspaceStore(db.db), message({ id: "m5", sessionId: "s3", turnId: null }));
    expect(stored("m4")).toContain(BIG);
    expect(stored("m5")).toContain(BIG);
  });

  it("[TPR-TX-05] an uncompacted tool call id is not refused (dedup stays the caller's rule)", async () => {
    await appendMessage(createSqliteWorkspaceStore(db.db), message());
    await appendMessage(createSqliteWorkspaceStore(db.db), message({ id: "m2" }));
  });
});
