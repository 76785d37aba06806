// #26 item 3: shell output is read, scanned and encoded on a read thread and
// streamed with backpressure; both engines, the thread bundle built for the
// test, and the inline fallback.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { GET as shellOutputGet } from "@/app/api/v1/messages/[id]/shell-output/route";
import { buildReadThreadBundle } from "@/scripts/lib/pass-thread-bundle";
import { TEST_POSTGRES_URL } from "@/server/db/pg/test-db";
import { AS_VIEWER, apiRequest, setUpEngineRouteTestEnv, type EngineRouteTestEnv } from "@/server/http/route-test-support";
import type { EngineName } from "@/server/engines-test-support";
import { backgroundNice } from "@/server/compaction/thread/background-priority";
import { createReadThreads } from "./pool";

let bundleDir: string;
let bundlePath: string;
beforeAll(async () => {
  bundleDir = fs.mkdtempSync(path.join(os.tmpdir(), "read-thread-"));
  bundlePath = path.join(bundleDir, "read-thread.cjs");
  await buildReadThreadBundle({ outFile: bundlePath });
});
afterAll(() => fs.rmSync(bundleDir, { recursive: true, force: true }));

const T = "2025-01-01T00:00:00Z";

async function seed(env: EngineRouteTestEnv, rows: { id: string; type: string; metadata: string }[]): Promise<void> {
  const ws = env.rt.stores.workspace;
  await ws.writeTransaction(async (tx) => {
    await tx.insertTask({ id: "t1", title: "t", state: "COMPLETED", createdAt: T, updatedAt: T, queuedForStep: false });
    await tx.insertSession({ id: "s1", taskId: "t1", state: "COMPLETED", startedAt: T, updatedAt: T, completedAt: T });
    for (const row of rows) {
      await tx.insertMessage({ ...row, sessionId: "s1", turnId: null, authorType: "agent", content: "", createdAt: T, updatedAt: T, toolCallId: null });
    }
  });
}

const shellRow = (stdout: string) =>
  `{"normalized":{"kind":"shell_exec","shell_exec":{"command":"npm test","work_dir":"/repo","output":{"exit_code":0,"stdout":${JSON.stringify(stdout)},"stderr":"e","truncated":false}}}}`;

const get = (id: string) => shellOutputGet(apiRequest("GET", `/api/v1/messages/${id}/shell-output`, AS_VIEWER), { params: Promise.resolve({ id }) });

for (const engine of ["sqlite", "postgres"] as EngineName[]) {
  describe.skipIf(engine === "postgres" && !TEST_POSTGRES_URL)(`shell output on a read thread (${engine})`, () => {
    let env: EngineRouteTestEnv;
    afterEach(() => env.dispose());

    it("[#26-3] a 4 MiB row is answered from the thread, in chunks, exactly", async () => {
      env = await setUpEngineRouteTestEnv(engine, "read-thread-", { readThreadBundle: bundlePath });
      const big = "line é 😀 \"quoted\"\n".repeat(220_000);
      await seed(env, [
        { id: "m1", type: "tool_execute", metadata: shellRow(big) },
        { id: "m2", type: "tool_execute", metadata: `${shellRow("x").slice(0, -1)},"payload_retention":{"removed_at":"2026-05-01T00:00:00Z","removed_fields":["normalized.shell_exec.output.stdout"]}}` },
        { id: "m3", type: "message", metadata: "{}" },
      ]);
      const before = env.rt.readThreads.stats();
      const response = await get("m1");
      expect(response.status).toBe(200);
      expect(response.headers.get("cache-control")).toBe("no-store");
      const reader = response.body!.getReader();
      let chunks = 0;
      const parts: Uint8Array[] = [];
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        chunks += 1;
        parts.push(value);
      }
      expect(chunks).toBeGreaterThan(8);
      const body = JSON.parse(Buffer.concat(parts).toString("utf8"));
      expect(body).toEqual({ messageId: "m1", command: "npm test", workDir: "/repo", exitCode: 0, stdout: big, stderr: "e", truncated: false });
      expect(env.rt.readThreads.stats().onThread).toBe(before.onThread + 1);
      expect(env.rt.readThreads.stats().inline).toBe(before.inline);

      const removed = await get("m2");
      expect(removed.status).toBe(410);
      expect(await removed.json()).toMatchObject({ error: { code: "tool_payload_removed" }, removedAt: "2026-05-01T00:00:00Z" });
      expect((await get("m3")).status).toBe(404);
      expect((await get("nope")).status).toBe(404);
      // Every answer finished: no place is held.
      expect(env.rt.readThreads.stats().active).toBe(0);
      expect(env.rt.readThreads.stats().threadsStarted).toBeLessThanOrEqual(2);
      // The thread runs below the request thread (Linux): a 32 MiB scan yields the cores to the event loop.
      const { threadNice, threadsStarted } = env.rt.readThreads.stats();
      expect(threadNice).toEqual(Array.from({ length: threadsStarted }, () => (process.platform === "linux" ? backgroundNice(os.getPriority()) : null)));
    });

    it("[#26-3] a client that stops reading holds at most a few chunks; cancelling frees the place", async () => {
      env = await setUpEngineRouteTestEnv(engine, "read-thread-", { readThreadBundle: bundlePath });
      await seed(env, [{ id: "m1", type: "tool_execute", metadata: shellRow("z".repeat(8 * 1024 * 1024)) }]);
      const response = await get("m1");
      const reader = response.body!.getReader();
      await reader.read();
      expect(env.rt.readThreads.stats().active).toBe(1);
      await reader.cancel();
      expect(env.rt.readThreads.stats().active).toBe(0);
    });

    it("the inline fallback answers the same", async () => {
      env = await setUpEngineRouteTestEnv(engine, "read-thread-", { readThreadBundle: null });
      await seed(env, [{ id: "m1", type: "tool_execute", metadata: shellRow("hello") }]);
      const response = await get("m1");
      expect(await response.json()).toMatchObject({ stdout: "hello", stderr: "e" });
      expect(env.rt.readThreads.stats().inline).toBe(1);
    });

    it("stop() fails an inline answer nobody reads to its end and waits until its connection is closed", async () => {
      env = await setUpEngineRouteTestEnv(engine, "read-thread-", { readThreadBundle: null });
      await seed(env, [{ id: "m1", type: "tool_execute", metadata: shellRow("z".repeat(8 * 1024 * 1024)) }]);
      const reader = (await get("m1")).body!.getReader();
      await reader.read();
      // Before, the task waited for a reader forever and kept its own connection past the runtime's stop
      // (PostgreSQL then dropped the database under it: an uncaught "terminating connection").
      await env.rt.readThreads.stop();
      const rest = (async () => {
        for (;;) if ((await reader.read()).done) return "complete";
      })();
      await expect(rest).rejects.toThrow(/server_stopping/);
    });
  });
}

describe("read places", () => {
  it("[#26-3] past the waiting bound a read answers 429 at once", async () => {
    const threads = createReadThreads({ bundlePath: null, log: { info: () => {}, error: () => {} } as never, maxActive: 1, maxWaiting: 0 });
    const source = { engine: "sqlite" as const, file: path.join(os.tmpdir(), "no-such-db-for-read-test.db") };
    const first = threads.answer(source, { kind: "shell-output", messageId: "m" }).catch((e) => e);
    await expect(threads.answer(source, { kind: "shell-output", messageId: "m" })).rejects.toMatchObject({ code: "too_many_requests" });
    await first;
    await threads.stop();
  });
});

import { GET as exportGet } from "@/app/api/v1/tasks/[id]/export/route";
import { exportTask } from "@/server/workspace/export/export-task";
import { importFixture } from "@/server/workspace/fixture/import-fixture";
import { sampleFixture } from "@/server/workspace/fixture/test-support";

const exportOf = (id: string) => exportGet(apiRequest("GET", `/api/v1/tasks/${id}/export`, AS_VIEWER), { params: Promise.resolve({ id }) });

for (const engine of ["sqlite", "postgres"] as EngineName[]) {
  describe.skipIf(engine === "postgres" && !TEST_POSTGRES_URL)(`task export streamed from a read thread (${engine})`, () => {
    let env: EngineRouteTestEnv;
    afterEach(() => env.dispose());

    it("[#26-3] the streamed document is byte for byte the one-piece export, over pages and large rows; thread and inline alike", async () => {
      for (const bundle of [bundlePath, null]) {
        env = await setUpEngineRouteTestEnv(engine, "read-thread-export-", { readThreadBundle: bundle });
        await importFixture(env.rt.stores.workspace, { file: "in.json", text: sampleFixture() });
        // A session of 1,200 messages, two of them 9 MiB: several pages by count and by bytes.
        const big = shellRow("b".repeat(9 * 1024 * 1024));
        await env.rt.stores.workspace.writeTransaction(async (tx) => {
          await tx.insertSession({ id: "s-many", taskId: "t1", state: "COMPLETED", startedAt: T, updatedAt: T, completedAt: T });
          for (let i = 0; i < 1200; i++) {
            const metadata = i === 7 || i === 8 ? big : shellRow(`out ${i} ✓`);
            await tx.insertMessage({ id: `mm${i}`, sessionId: "s-many", turnId: null, authorType: "agent", type: "tool_execute", content: `c${i}`, metadata, createdAt: T, updatedAt: T, toolCallId: null });
          }
        });
        const expected = await exportTask(env.rt.stores.workspace, "t1");
        const response = await exportOf("t1");
        expect(response.status).toBe(200);
        expect(response.headers.get("content-disposition")).toBe('attachment; filename="task-t1.json"');
        let chunks = 0;
        const parts: Uint8Array[] = [];
        const reader = response.body!.getReader();
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          chunks += 1;
          parts.push(value);
        }
        expect(chunks).toBeGreaterThan(20);
        expect(Buffer.concat(parts).toString("utf8") === expected).toBe(true);
        expect((await exportOf("t2")).status).toBe(200);
        expect(await (await exportOf("t2")).text()).toBe(await exportTask(env.rt.stores.workspace, "t2"));
        expect((await exportOf("nope")).status).toBe(404);
        await env.dispose();
      }
      env = await setUpEngineRouteTestEnv(engine, "read-thread-export-", { readThreadBundle: null });
    });

    it("a row with malformed stored metadata refuses the export before any byte", async () => {
      env = await setUpEngineRouteTestEnv(engine, "read-thread-export-", { readThreadBundle: bundlePath });
      await importFixture(env.rt.stores.workspace, { file: "in.json", text: sampleFixture() });
      await env.sql.run("update messages set metadata = '{broken' where id = 'm1'");
      const response = await exportOf("t1");
      expect(response.status).toBe(500);
      expect(await response.text()).not.toContain("broken");
    });
  });
}

// The conversation view: every row's tool summary was extracted on the main
// thread (SQLite's json_extract parsed a 32 MiB row whole, 0.7-1.3 s at load
// 18; PostgreSQL's synchronous client fetched it and the span scanner read it
// there). Now read and summarized on a read thread.
import { GET as conversationGet } from "@/app/api/v1/tasks/[id]/route";
import { readTaskConversation } from "@/server/workspace/read/tasks";
import { textPieces } from "./run-task";

const conversationOf = (id: string) => conversationGet(apiRequest("GET", `/api/v1/tasks/${id}`, AS_VIEWER), { params: Promise.resolve({ id }) });

async function readAll(response: Response): Promise<{ chunks: number; text: string }> {
  const parts: Uint8Array[] = [];
  const reader = response.body!.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(value);
  }
  return { chunks: parts.length, text: Buffer.concat(parts).toString("utf8") };
}

for (const engine of ["sqlite", "postgres"] as EngineName[]) {
  describe.skipIf(engine === "postgres" && !TEST_POSTGRES_URL)(`conversation view from a read thread (${engine})`, () => {
    let env: EngineRouteTestEnv;
    afterEach(() => env.dispose());

    it("[#26-3] a task with an 8 MiB shell row is summarized on the thread: the same answer as the store's, in pieces, 404 for an unknown task; inline alike", async () => {
      for (const bundle of [bundlePath, null]) {
        env = await setUpEngineRouteTestEnv(engine, "read-thread-conversation-", { readThreadBundle: bundle });
        await seed(env, [
          { id: "m1", type: "tool_execute", metadata: shellRow("z".repeat(8 * 1024 * 1024)) },
          { id: "m2", type: "tool_execute", metadata: `${shellRow("x").slice(0, -1)},"payload_retention":{"removed_at":"2026-05-01T00:00:00Z","removed_fields":["normalized.shell_exec.output.stdout"]}}` },
          { id: "m3", type: "message", metadata: "{broken" },
        ]);
        // A long text message: the answer crosses several pieces, with pairs of surrogates at every cut.
        await env.sql.run("update messages set content = ? where id = 'm3'", ["😀".repeat(300_000)]);
        const before = env.rt.readThreads.stats();
        const response = await conversationOf("t1");
        expect(response.status).toBe(200);
        expect(response.headers.get("content-type")).toBe("application/json");
        expect(response.headers.get("cache-control")).toBe("no-store");
        const { chunks, text } = await readAll(response);
        expect(chunks).toBeGreaterThan(2);
        const body = JSON.parse(text);
        expect(body).toEqual(await readTaskConversation(env.rt.stores.workspace, "t1"));
        expect(body.messages.map((m: { tool: unknown }) => m.tool)).toEqual([
          { kind: "shell_exec", title: null, command: "npm test", exitCode: 0, removedAt: null },
          { kind: "shell_exec", title: null, command: "npm test", exitCode: 0, removedAt: "2026-05-01T00:00:00Z" },
          null,
        ]);
        const after = env.rt.readThreads.stats();
        if (bundle) expect([after.onThread - before.onThread, after.inline - before.inline]).toEqual([1, 0]);
        else expect(after.inline - before.inline).toBe(1);
        const missing = await conversationOf("nope");
        expect(missing.status).toBe(404);
        expect((await missing.json()).error.code).toBe("not_found");
        expect(env.rt.readThreads.stats().active).toBe(0);
        await env.dispose();
      }
      env = await setUpEngineRouteTestEnv(engine, "read-thread-conversation-", { readThreadBundle: null });
    });
  });
}

describe("textPieces", () => {
  it("cuts at the size, never between the two halves of a surrogate pair, and loses nothing", () => {
    const text = `a${"😀".repeat(10)}b`;
    for (const size of [1, 2, 3, 4, 7, 100]) {
      const pieces = [...textPieces(text, size)];
      expect(pieces.join("")).toBe(text);
      for (const piece of pieces) {
        expect(piece.length).toBeLessThanOrEqual(size + 1);
        expect(Buffer.from(piece, "utf8").toString("utf8")).toBe(piece);
      }
    }
    expect([...textPieces("", 4)]).toEqual([]);
  });
});
