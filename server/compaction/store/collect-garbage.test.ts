import vm from "node:vm";
import { Worker } from "node:worker_threads";
import { describe, expect, it } from "vitest";
import { collectGarbage } from "./collect-garbage";

// A WeakRef's target survives until the end of the job that made it: the
// check runs in a later job, after the collection.
function deadBuffer(): WeakRef<Buffer> {
  return new WeakRef(Buffer.alloc(8 * 1024 * 1024));
}

function gcInNewWorker(): Promise<string> {
  const worker = new Worker("require('node:worker_threads').parentPort.postMessage(typeof gc)", { eval: true });
  return new Promise((resolve, reject) => {
    worker.once("message", (type: string) => void worker.terminate().then(() => resolve(type)));
    worker.once("error", reject);
  });
}

describe("collectGarbage", () => {
  it("collects a dead Buffer on demand, every time", async () => {
    for (let round = 0; round < 3; round++) {
      const ref = deadBuffer();
      await new Promise((resolve) => setImmediate(resolve));
      collectGarbage();
      expect(ref.deref()).toBeUndefined();
    }
  });

  it("leaves gc unexposed: on this global, in contexts and in workers created afterwards", async () => {
    collectGarbage();
    expect("gc" in globalThis).toBe(false);
    expect(vm.runInNewContext("typeof gc")).toBe("undefined");
    expect(await gcInNewWorker()).toBe("undefined");
  });
});
