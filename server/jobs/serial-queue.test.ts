import { describe, expect, it } from "vitest";
import { createSerialQueue, type Job, type JobContext } from "./serial-queue";

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

function recordingJob(id: string, log: string[], priority: Job["priority"] = "manual", gate?: Promise<void>): Job {
  return {
    id,
    kind: "analysis",
    priority,
    async run() {
      log.push(`start:${id}`);
      if (gate) await gate;
      log.push(`end:${id}`);
    },
  };
}

describe("serial queue", () => {
  it("[TPR-SCH-01] runs one job at a time", async () => {
    const q = createSerialQueue();
    const log: string[] = [];
    const gate = deferred();
    q.enqueue(recordingJob("a", log, "manual", gate.promise));
    q.enqueue(recordingJob("b", log));
    await Promise.resolve();
    await Promise.resolve();
    expect(log).toEqual(["start:a"]);
    gate.resolve();
    await q.idle();
    expect(log).toEqual(["start:a", "end:a", "start:b", "end:b"]);
  });

  it("[TPR-SCH-02] a manual job goes before the next scheduled pass", async () => {
    const q = createSerialQueue();
    const log: string[] = [];
    const gate = deferred();
    q.enqueue(recordingJob("running", log, "manual", gate.promise));
    q.enqueue(recordingJob("scheduled", log, "scheduled"));
    q.enqueue(recordingJob("manual", log, "manual"));
    gate.resolve();
    await q.idle();
    expect(log.filter((l) => l.startsWith("start"))).toEqual(["start:running", "start:manual", "start:scheduled"]);
  });

  it("[TPR-API-05] cancel asks the running job to stop at its next boundary", async () => {
    const q = createSerialQueue();
    const seen: boolean[] = [];
    const gate = deferred();
    q.enqueue({
      id: "op",
      kind: "cleanup",
      priority: "manual",
      async run(ctx: JobContext) {
        seen.push(ctx.shouldStop());
        await gate.promise;
        seen.push(ctx.shouldStop());
        expect(ctx.stopReason()).toBe("cancelled");
      },
    });
    await Promise.resolve();
    await Promise.resolve();
    expect(q.cancel("op")).toBe(true);
    expect(q.cancel("unknown")).toBe(false);
    gate.resolve();
    await q.idle();
    expect(seen).toEqual([false, true]);
  });

  it("cancel removes a queued job", async () => {
    const q = createSerialQueue();
    const log: string[] = [];
    const gate = deferred();
    q.enqueue(recordingJob("a", log, "manual", gate.promise));
    q.enqueue(recordingJob("b", log));
    expect(q.pending().map((p) => p.id)).toEqual(["b"]);
    expect(q.cancel("b")).toBe(true);
    gate.resolve();
    await q.idle();
    expect(log).toEqual(["start:a", "end:a"]);
  });

  it("[TPR-SCH-07] stop signals shutdown, drops pending work and resolves when idle", async () => {
    const q = createSerialQueue();
    const log: string[] = [];
    let reason: string | null = null;
    const gate = deferred();
    q.enqueue({
      id: "a",
      kind: "cleanup",
      priority: "scheduled",
      async run(ctx) {
        await gate.promise;
        reason = ctx.stopReason();
      },
    });
    q.enqueue(recordingJob("b", log));
    await Promise.resolve();
    const stopping = q.stop();
    gate.resolve();
    await stopping;
    expect(reason).toBe("shutdown");
    expect(log).toEqual([]);
    q.enqueue(recordingJob("c", log));
    await q.idle();
    expect(log).toEqual([]);
  });

  it("a failing job does not stop the queue", async () => {
    const errors: string[] = [];
    const q = createSerialQueue({ onError: (job) => errors.push(job.id) });
    const log: string[] = [];
    q.enqueue({ id: "bad", kind: "x", priority: "manual", run: async () => Promise.reject(new Error("boom")) });
    q.enqueue(recordingJob("good", log));
    await q.idle();
    expect(errors).toEqual(["bad"]);
    expect(log).toEqual(["start:good", "end:good"]);
  });
});
