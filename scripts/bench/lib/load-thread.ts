// A benchmark's load generator runs on a worker thread of its own (its
// source as a string, evaluated there), so the measured server's event loop
// and the load's clients never share a thread.
import { Worker } from "node:worker_threads";

/** Runs `source` on a new worker thread with `workerData`; resolves with the first message it posts. */
export function runOnLoadThread<T>(source: string, workerData: unknown): Promise<T> {
  const worker = new Worker(source, { eval: true, workerData });
  return new Promise((resolve, reject) => {
    worker.once("message", (message: T) => {
      void worker.terminate();
      resolve(message);
    });
    worker.once("error", reject);
  });
}

/** The p-th percentile (nearest rank, 0.1 ms), 0 for no values. */
export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return Number((sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0).toFixed(1));
}
