import fs from "node:fs";
import { Worker } from "node:worker_threads";
import { afterEach, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "@/server/db/test-db";
import { LOWER_PRIORITY_PROGRAM, PASS_THREAD_NICE } from "./background-priority";
import { openPassStore, type PassStore } from "./pass-connection";

/** The nice value of one thread of this process, from its /proc stat line (field 19). */
function niceOf(statFile: string): number {
  const stat = fs.readFileSync(statFile, "utf8");
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16]);
}
const threadNices = () => fs.readdirSync("/proc/self/task").map((tid) => niceOf(`/proc/self/task/${tid}/stat`));

let t: TestDb | undefined;
let pass: PassStore | undefined;
afterEach(async () => {
  await pass?.close();
  pass = undefined;
  t?.close();
  t = undefined;
});

describe.runIf(process.platform === "linux")("the pass's threads run below the request thread's priority", () => {
  it("lowers the thread that runs the program, and only that thread", async () => {
    const before = niceOf("/proc/thread-self/stat");
    const worker = new Worker(
      `${LOWER_PRIORITY_PROGRAM}
const fs = require("node:fs");
const stat = fs.readFileSync("/proc/thread-self/stat", "utf8");
require("node:worker_threads").parentPort.postMessage(Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16]));`,
      { eval: true },
    );
    const nice = await new Promise<number>((resolve, reject) => {
      worker.once("message", resolve);
      worker.once("error", reject);
    });
    await worker.terminate();
    expect(nice).toBe(PASS_THREAD_NICE);
    expect(niceOf("/proc/thread-self/stat")).toBe(before);
  });

  it("runs the checkpoint thread at the lowered priority while the pass's own thread keeps its own", async () => {
    t = createTestDb("ws-nice-");
    const caller = niceOf("/proc/thread-self/stat");
    pass = openPassStore(t.file, { checkpointThread: { root: process.cwd() } });
    expect(pass.checkpoints()).toBe("thread");
    // The thread lowers itself as its program starts.
    await expect.poll(() => threadNices().filter((nice) => nice === PASS_THREAD_NICE).length).toBeGreaterThan(0);
    expect(niceOf("/proc/thread-self/stat")).toBe(caller);
  });
});
