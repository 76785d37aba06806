// The cleanup job: one slice of a pass per run. The window, the backup
// verification and the record bookkeeping happen here on the main thread;
// the slice's batches run where cleanup-slice.ts puts them (a worker thread
// with its own connection or pool, else inline), admitted batch by batch by
// the maintenance guard.
import "server-only";
import { formatUtc, parseRfc3339 } from "@/lib/time/rfc3339";
import { continuationAt, nextDueAfterCompletePass } from "@/server/jobs/schedule";
import type { JobContext } from "@/server/jobs/serial-queue";
import { waitWith } from "../cleanup/pass";
import { editRecord, markActiveRunning } from "../policy/operations";
import { readCompactionRecord } from "../policy/record";
import { createSliceRunner } from "./cleanup-slice";
import { guardedJob, type JobHost } from "./job-host";
import { verifyBeforeCleanup } from "./verify-before-cleanup";

export function createCleanupJob(host: JobHost): (operationId: string, priority: "manual" | "scheduled") => void {
  const { deps, gate } = host;
  const { store, clock, timers, log, bus } = deps;
  const runSlice = createSliceRunner({ passThread: deps.passThread, passThreadState: deps.passThreadState, dbFile: deps.dbFile, clock, log });

  const enqueueCleanup = (operationId: string, priority: "manual" | "scheduled") => {
    host.queue.enqueue({
      id: operationId,
      kind: "cleanup",
      priority,
      run: guardedJob(host, operationId, "cleanup", async (job: JobContext) => {
        if (!gate.mayRun(operationId)) return host.setContinuation(operationId, clock.now());
        const started = await markActiveRunning(store, { operationId, nowMs: clock.now() });
        if (!started) return;
        host.publish(started);
        const verified = await verifyBeforeCleanup({ store, maintenance: deps.maintenance, dbFile: deps.dbFile, clock, guard: deps.guard, cache: host.cache, log });
        if (verified.ok === "deferred") {
          // Another maintenance operation owns the guard: deferral, not failure.
          await host.setContinuation(operationId, continuationAt({ finishedSliceAtMs: clock.now() }));
          return;
        }
        if (!verified.ok) return host.endOrphan(operationId, "failed", verified.code);
        const result = await runSlice({
          store,
          clock,
          operationId,
          wait: waitWith(timers),
          shouldStop: () => job.stopReason() === "cancelled",
          // Shutdown keeps the cursor: the next start resumes the pass.
          shouldPause: () => job.stopReason() === "shutdown" || !gate.mayRun(operationId),
          admitBatch: () => deps.guard.tryAcquire({ owner: `cleanup:${operationId}`, kind: "compaction" }),
          log,
          workBudgetMs: deps.pass?.workBudgetMs,
          yieldMs: deps.pass?.yieldMs,
          minYieldMs: deps.pass?.minYieldMs,
          maxBatchRows: deps.pass?.maxBatchRows,
          onBatch: async (batch) => {
            bus.publish({ type: "messages_changed", operationId, messageIds: batch.changedIds });
            const read = await readCompactionRecord(store);
            const active = read.state === "malformed" ? null : read.record.runtime.activeOperation;
            if (active?.id === operationId) host.publish(active);
          },
        });
        if (result.continuation) {
          if (!host.isRunning()) return;
          await host.setContinuation(operationId, continuationAt({ finishedSliceAtMs: clock.now(), requestedDelayMs: result.continueAfterMs ?? 0 }));
          return;
        }
        if (!result.operation) {
          await host.endOrphan(operationId, job.stopReason() === "cancelled" ? "cancelled" : "failed", result.reason);
          return host.scheduleNextPass();
        }
        host.publish(result.operation);
        // Next due 24 h after this pass, complete or not: an ended pass is
        // never retried in a loop; a cancelled one waits for the next day.
        const finishedMs = parseRfc3339(result.operation.finishedAt) ?? clock.now();
        await editRecord(store, clock.now(), (record) => {
          record.runtime.nextDueAt = formatUtc(nextDueAfterCompletePass(finishedMs));
          return { next: record, result: undefined };
        });
        if (!host.initialCleanupPending()) await host.scheduleNextPass();
      }),
    });
  };
  return enqueueCleanup;
}
