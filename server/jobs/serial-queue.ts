// One runner at a time. Manual jobs go before the next scheduled pass, and a
// running job is never preempted: cancellation and shutdown are requests the
// job honours at its next batch boundary.
import { AsyncResource } from "node:async_hooks";

export type JobPriority = "manual" | "scheduled";

export type JobContext = {
  /** True once cancel, shutdown or a policy change asked the job to stop. */
  shouldStop(): boolean;
  stopReason(): StopReason | null;
};

export type StopReason = "cancelled" | "shutdown";

export type Job = {
  id: string;
  kind: string;
  priority: JobPriority;
  run(ctx: JobContext): Promise<void>;
};

export type SerialQueue = {
  enqueue(job: Job): void;
  /** Cancels a queued job or asks the running one to stop. False if unknown. */
  cancel(id: string): boolean;
  running(): { id: string; kind: string } | null;
  pending(): Array<{ id: string; kind: string; priority: JobPriority }>;
  /** Asks the running job to stop, drops pending ones, resolves when idle. */
  stop(): Promise<void>;
  /** Resolves when nothing runs and nothing waits (tests). */
  idle(): Promise<void>;
};

export function createSerialQueue(options: { onError?: (job: Job, error: unknown) => void } = {}): SerialQueue {
  const waiting: Job[] = [];
  let current: { job: Job; stop: StopReason | null } | null = null;
  let stopped = false;
  let idleWaiters: Array<() => void> = [];
  // Jobs run in the async context the queue was created in, never in the
  // enqueuer's: a job accepted inside a request's open transaction would
  // otherwise run its own statements in that transaction (the stores find
  // the transaction through the async context).
  const runJob = AsyncResource.bind((job: Job, ctx: JobContext) => job.run(ctx));

  const settleIdle = () => {
    if (current || waiting.length) return;
    const waiters = idleWaiters;
    idleWaiters = [];
    for (const resolve of waiters) resolve();
  };

  const pump = () => {
    if (current || stopped) return settleIdle();
    const manualIndex = waiting.findIndex((j) => j.priority === "manual");
    const index = manualIndex >= 0 ? manualIndex : 0;
    const job = waiting.splice(index, 1)[0];
    if (!job) return settleIdle();
    const slot: { job: Job; stop: StopReason | null } = { job, stop: null };
    current = slot;
    const ctx: JobContext = { shouldStop: () => slot.stop !== null, stopReason: () => slot.stop };
    // Run on a fresh tick so enqueue() never runs job code synchronously.
    void Promise.resolve()
      .then(() => runJob(job, ctx))
      .catch((error: unknown) => options.onError?.(job, error))
      .finally(() => {
        current = null;
        pump();
      });
  };

  return {
    enqueue(job) {
      if (stopped) return;
      waiting.push(job);
      pump();
    },
    cancel(id) {
      if (current?.job.id === id) {
        current.stop ??= "cancelled";
        return true;
      }
      const index = waiting.findIndex((j) => j.id === id);
      if (index < 0) return false;
      waiting.splice(index, 1);
      settleIdle();
      return true;
    },
    running: () => (current ? { id: current.job.id, kind: current.job.kind } : null),
    pending: () => waiting.map((j) => ({ id: j.id, kind: j.kind, priority: j.priority })),
    async stop() {
      stopped = true;
      waiting.length = 0;
      // A cancel already requested stays a cancel.
      if (current) current.stop ??= "shutdown";
      await new Promise<void>((resolve) => {
        idleWaiters.push(resolve);
        settleIdle();
      });
    },
    idle: () =>
      new Promise<void>((resolve) => {
        idleWaiters.push(resolve);
        settleIdle();
      }),
  };
}
