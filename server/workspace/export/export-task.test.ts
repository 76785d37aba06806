import { afterEach, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "@/server/db/test-db";
import { AppError } from "@/server/errors";
import { fingerprint, sampleFixture, TRICKY_METADATA } from "../fixture/test-support";
import { importFixture } from "../fixture/import-fixture";
import { member, type JsonNode } from "../../json/nodes";
import { parseJsonTree } from "../../json/scan";
import { replaceMessageMetadata } from "../message-writes";
import { exportTask } from "./export-task";
import { createSqliteWorkspaceStore } from "@/server/workspace/sqlite-store";

const dbs: TestDb[] = [];
afterEach(() => dbs.splice(0).forEach((d) => d.close()));
function db(): TestDb {
  const d = createTestDb();
  dbs.push(d);
  return d;
}

/** The exact source text of every message's metadata in an export document. */
function exportedMetadata(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const root = parseJsonTree(text);
  const items = (n: JsonNode | undefined) => (n?.kind === "array" ? n.items : []);
  for (const task of items(member(root, "tasks"))) {
    for (const session of items(member(task, "sessions"))) {
      for (const message of items(member(session, "messages"))) {
        const id = member(message, "id");
        const metadata = member(message, "metadata")!;
        out[id?.kind === "string" ? id.value : "?"] = text.slice(metadata.start, metadata.end);
      }
    }
  }
  return out;
}

describe("task export", () => {
  it("[TPR-TX-09] [TPR-RED-10] splices each message's metadata exactly as stored", async () => {
    const a = db();
    await importFixture(createSqliteWorkspaceStore(a.db), { file: "in.json", text: sampleFixture() });
    const text = await exportTask(createSqliteWorkspaceStore(a.db), "t1");
    const stored = a.sqlite.prepare("select id, metadata from messages order by rowid").all() as { id: string; metadata: string }[];
    const exported = exportedMetadata(text);
    for (const row of stored) {
      expect(Buffer.from(exported[row.id]!, "utf8").equals(Buffer.from(row.metadata, "utf8"))).toBe(true);
    }
    expect(exported.m2).toBe(TRICKY_METADATA);
  });

  it("[TPR-TX-09] export -> import into an empty database -> export is byte-identical", async () => {
    const a = db();
    await importFixture(createSqliteWorkspaceStore(a.db), { file: "in.json", text: sampleFixture() });
    for (const taskId of ["t1", "t2"]) {
      const first = await exportTask(createSqliteWorkspaceStore(a.db), taskId);
      const b = db();
      await importFixture(createSqliteWorkspaceStore(b.db), { file: `${taskId}.json`, text: first });
      expect(await exportTask(createSqliteWorkspaceStore(b.db), taskId)).toBe(first);
    }
  });

  it("exports the document shape: format, version, one task with its sessions, turns, messages, queue and runs", async () => {
    const a = db();
    await importFixture(createSqliteWorkspaceStore(a.db), { file: "in.json", text: sampleFixture() });
    const doc = JSON.parse(await exportTask(createSqliteWorkspaceStore(a.db), "t2"));
    expect(doc).toEqual({
      format: "workspace-fixture",
      version: 1,
      tasks: [
        {
          id: "t2",
          title: "Odd states",
          state: "MYSTERY",
          createdAt: "2026-13-40T00:00:00Z",
          updatedAt: "2026-01-03T00:00:00Z",
          queuedForStep: false,
          sessions: [
            {
              id: "s2",
              state: "HIBERNATING",
              startedAt: null,
              updatedAt: "2026-01-03T00:00:00Z",
              completedAt: null,
              turns: [{ id: "u2", startedAt: "2026-01-03T00:00:00Z", completedAt: null }],
              messages: [],
              queuedMessages: [{ id: "q1", content: "and then deploy", queuedAt: "2026-01-03T00:00:00Z" }],
              runs: [{ id: "r2", state: "WARMING_UP" }],
            },
          ],
        },
      ],
    });
  });

  it("[TPR-TX-09] keeps a compaction marker and the absence of removed fields", async () => {
    const a = db();
    await importFixture(createSqliteWorkspaceStore(a.db), { file: "in.json", text: sampleFixture() });
    const compacted =
      '{"tool_call_id":"c1","normalized":{"kind":"shell_exec","shell_exec":{"command":"npm test","work_dir":"/repo",' +
      '"output":{"exit_code":0,"truncated":false}}},"payload_retention":{"version":1,"removed_at":"2026-05-01T00:00:00Z",' +
      '"removed_fields":["normalized.shell_exec.output.stdout","normalized.shell_exec.output.stderr"],"removed_bytes":9007199254740993}}';
    await replaceMessageMetadata(createSqliteWorkspaceStore(a.db), { messageId: "m2", metadata: compacted, updatedAt: "2026-01-02T10:02:00Z" });
    const text = await exportTask(createSqliteWorkspaceStore(a.db), "t1");
    expect(exportedMetadata(text).m2).toBe(compacted);
    const b = db();
    await importFixture(createSqliteWorkspaceStore(b.db), { file: "again.json", text });
    expect(b.sqlite.prepare("select metadata from messages where id = 'm2'").get()).toEqual({ metadata: compacted });
  });

  it("stores pretty-printed metadata in one canonical compact form so re-exports match", async () => {
    const a = db();
    await importFixture(createSqliteWorkspaceStore(a.db), { file: "in.json", text: sampleFixture() });
    await replaceMessageMetadata(createSqliteWorkspaceStore(a.db), { messageId: "m1", metadata: '{ "a" : [ 1 , 1.10 ] ,\n "b" : "\\u00e9" }', updatedAt: "2026-01-02T10:02:00Z" });
    expect(exportedMetadata(await exportTask(createSqliteWorkspaceStore(a.db), "t1")).m1).toBe('{"a":[1,1.10],"b":"\\u00e9"}');
  });

  it("answers not_found for an unknown task and refuses malformed stored metadata", async () => {
    const a = db();
    await importFixture(createSqliteWorkspaceStore(a.db), { file: "in.json", text: sampleFixture() });
    await expect(exportTask(createSqliteWorkspaceStore(a.db), "nope")).rejects.toThrow(expect.objectContaining({ code: "not_found" }));
    a.sqlite.prepare("update messages set metadata = '{broken' where id = 'm1'").run();
    const before = fingerprint(a.sqlite);
    let error: unknown;
    try {
      await exportTask(createSqliteWorkspaceStore(a.db), "t1");
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).message).not.toContain("broken");
    expect(fingerprint(a.sqlite)).toEqual(before);
  });
});
