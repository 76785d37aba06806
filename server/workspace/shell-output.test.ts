import { afterEach, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "@/server/db/test-db";
import { AppError } from "@/server/errors";
import { sampleFixture } from "./fixture/test-support";
import { importFixture } from "./fixture/import-fixture";
import { replaceMessageMetadata } from "./message-writes";
import { getShellOutput } from "./shell-output";
import { createSqliteWorkspaceStore } from "@/server/workspace/sqlite-store";

let t: TestDb | undefined;
afterEach(() => t?.close());

async function setup(): Promise<TestDb> {
  t = createTestDb();
  await importFixture(createSqliteWorkspaceStore(t.db), { file: "in.json", text: sampleFixture() });
  return t;
}

async function caught(fn: () => Promise<unknown>): Promise<AppError> {
  try {
    await fn();
  } catch (e) {
    if (e instanceof AppError) return e;
    throw e;
  }
  throw new Error("expected an AppError");
}

const COMPACTED =
  '{"tool_call_id":"c1","normalized":{"kind":"shell_exec","shell_exec":{"command":"npm test","work_dir":"/repo",' +
  '"output":{"exit_code":2,"truncated":true}}},"payload_retention":{"version":1,"removed_at":"2026-05-01T03:00:00Z",' +
  '"removed_fields":["normalized.shell_exec.output.stdout","normalized.shell_exec.output.stderr"],"removed_bytes":4096}}';

describe("shell output", () => {
  it("returns command, directory, exit code, streams and truncation for a shell_exec message", async () => {
    const db = await setup();
    expect(await getShellOutput(createSqliteWorkspaceStore(db.db), "m2")).toEqual({
      messageId: "m2",
      command: "npm test",
      workDir: "/repo",
      exitCode: 0,
      stdout: "ok\n",
      stderr: "",
      truncated: false,
    });
  });

  it("answers not_found for unknown messages, other message types and other tool kinds", async () => {
    const db = await setup();
    expect((await caught(() => getShellOutput(createSqliteWorkspaceStore(db.db), "nope"))).code).toBe("not_found");
    expect((await caught(() => getShellOutput(createSqliteWorkspaceStore(db.db), "m1"))).code).toBe("not_found");
    await replaceMessageMetadata(createSqliteWorkspaceStore(db.db), {
      messageId: "m2",
      metadata: '{"normalized":{"kind":"read_file","read_file":{"file_path":"/a"}}}',
      updatedAt: "2026-01-02T10:02:00Z",
    });
    expect((await caught(() => getShellOutput(createSqliteWorkspaceStore(db.db), "m2"))).code).toBe("not_found");
  });

  it("[TPR-TX-06] answers 410 tool_payload_removed with removal time and retained summary once the marker exists", async () => {
    const db = await setup();
    await replaceMessageMetadata(createSqliteWorkspaceStore(db.db), { messageId: "m2", metadata: COMPACTED, updatedAt: "2026-01-02T10:02:00Z" });
    const error = (await caught(() => getShellOutput(createSqliteWorkspaceStore(db.db), "m2")));
    expect(error.code).toBe("tool_payload_removed");
    expect(error.extra).toEqual({
      removedAt: "2026-05-01T03:00:00Z",
      summary: {
        command: "npm test",
        workDir: "/repo",
        exitCode: 2,
        truncated: true,
        removedFields: ["normalized.shell_exec.output.stdout", "normalized.shell_exec.output.stderr"],
      },
    });
  });

  it("[TPR-TX-06] a marker wins even when output text is still present", async () => {
    const db = await setup();
    const withStdout = COMPACTED.replace('"exit_code":2', '"exit_code":2,"stdout":"secret"');
    await replaceMessageMetadata(createSqliteWorkspaceStore(db.db), { messageId: "m2", metadata: withStdout, updatedAt: "2026-01-02T10:02:00Z" });
    const error = (await caught(() => getShellOutput(createSqliteWorkspaceStore(db.db), "m2")));
    expect(error.code).toBe("tool_payload_removed");
    expect(JSON.stringify(error.extra)).not.toContain("secret");
  });

  it("fails closed on malformed stored metadata", async () => {
    const db = await setup();
    db.sqlite.prepare("update messages set metadata = '{\"normalized\":' where id = 'm2'").run();
    expect((await caught(() => getShellOutput(createSqliteWorkspaceStore(db.db), "m2"))).code).toBe("not_found");
  });
});
