// The persistent threads (the SQLite maintenance lanes, the read-thread pool)
// never keep a process alive: a CLI command that used them exits when its
// own work is done. On Node 20 a "message" listener added after unref() refs
// the worker again, and `compaction backup create` printed its receipt and
// then hung forever (the CLI tests timed out).
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildReadThreadBundle } from "@/scripts/lib/pass-thread-bundle";
import { seededDb } from "./test-support/fixtures";

let dir: string;
let bundlePath: string;
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "thread-lifetime-"));
  bundlePath = path.join(dir, "read-thread.cjs");
  await buildReadThreadBundle({ outFile: bundlePath });
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe("persistent threads", { timeout: 120_000 }, () => {
  it("a process that used the maintenance lanes and a read thread exits by itself", async () => {
    const t = seededDb(2, 10);
    try {
      const tsx = path.join(process.cwd(), "node_modules", ".bin", "tsx");
      const child = spawn(tsx, ["--conditions=react-server", "server/maintenance/test-support/threads-then-return.ts", t.file, bundlePath], { stdio: ["ignore", "pipe", "pipe"] });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
      child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
      // Waits for the exit itself: a thread that keeps the process alive fails this test by its timeout.
      const exit = await new Promise<{ code: number | null; signal: string | null }>((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
      expect({ ...exit, stdout, stderr }).toEqual({ code: 0, signal: null, stdout: "done\n", stderr: "" });
    } finally {
      t.close();
    }
  });
});
