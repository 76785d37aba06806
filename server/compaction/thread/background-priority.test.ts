import fs from "node:fs";
import { Worker } from "node:worker_threads";
import { afterEach, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "@/server/db/test-db";
import { backgroundNice, backgroundNiceFromHere, LOWER_PRIORITY_PROGRAM } from "./background-priority";
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

/** Runs the eval'd lowering in a thread of its own with `nice` as its target; that thread's nice value after. */
async function niceAfterProgram(nice: number | null): Promise<number> {
  const worker = new Worker(
    `const { workerData, parentPort } = require("node:worker_threads");
${LOWER_PRIORITY_PROGRAM}
const stat = require("node:fs").readFileSync("/proc/thread-self/stat", "utf8");
parentPort.postMessage(Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16]));`,
    { eval: true, workerData: { nice } },
  );
  try {
    return await new Promise<number>((resolve, reject) => {
      worker.once("message", resolve);
      worker.once("error", reject);
    });
  } finally {
    await worker.terminate();
  }
}

describe.runIf(process.platform === "linux")("the pass's threads run below the request thread's priority", () => {
  it("lowers the thread that runs the program one step below its creator, and only that thread", async () => {
    const before = niceOf("/proc/thread-self/stat");
    expect(backgroundNiceFromHere()).toBe(backgroundNice(before));
    expect(await niceAfterProgram(backgroundNiceFromHere())).toBe(Math.min(19, before + 10));
    expect(niceOf("/proc/thread-self/stat")).toBe(before);
  });

  it("never raises a thread's priority: a nice value below the one it inherited is ignored", async () => {
    const before = niceOf("/proc/thread-self/stat");
    expect(await niceAfterProgram(before - 1)).toBe(before);
    expect(await niceAfterProgram(null)).toBe(before);
  });

  it("runs the checkpoint thread at the lowered priority while the pass's own thread keeps its own", async () => {
    t = createTestDb("ws-nice-");
    const caller = niceOf("/proc/thread-self/stat");
    pass = openPassStore(t.file, { checkpointThread: { root: process.cwd() } });
    expect(pass.checkpoints()).toBe("thread");
    // The thread lowers itself as its program starts.
    await expect.poll(() => threadNices().filter((nice) => nice === backgroundNice(caller)).length).toBeGreaterThan(0);
    expect(niceOf("/proc/thread-self/stat")).toBe(caller);
  });
});
