// The cleanup pass's threads run at a lower scheduling priority than the
// server's request thread, so a status read that arrives while a pass keeps
// both cores busy is scheduled first. On Linux a nice value belongs to a
// thread, and setpriority on the calling thread (who = 0) changes that
// thread only; elsewhere the same call would lower the whole process, the
// request thread included, so it is made on Linux only. A thread starts
// with the nice value of the thread that created it, so a background thread
// goes BACKGROUND_NICE_STEP below that value once (never above 19, and never
// higher than it already is: raising one may need privileges, and it would
// put the pass ahead of a server that was itself started niced), and a
// thread it starts stays at its value. The value is a weight, not a cap: on
// an idle machine the threads still get whole cores.
// libuv's thread pool threads are created by the first thread that needs
// one; the server's main thread uses the pool (files, crypto) long before a
// pass starts, so the pool keeps the server's priority.
import "server-only";
import os from "node:os";

/** How many nice steps below its creator a background thread runs (0 is a default server's; 19 the lowest). */
const BACKGROUND_NICE_STEP = 10;
const LOWEST = 19;

// Module state is per thread: each worker thread loads its own copy.
let lowered = false;

/** The nice value a background thread should run at, for a creator at `nice` (not itself a background thread). */
export function backgroundNice(nice: number): number {
  return Math.min(LOWEST, nice + BACKGROUND_NICE_STEP);
}

/**
 * Lowers the calling thread once; its nice value after, or null where it
 * was left alone (not Linux, or refused).
 */
export function lowerThreadPriority(): number | null {
  if (process.platform !== "linux") return null;
  try {
    // On Linux getpriority(who = 0) reads the calling thread's own value.
    if (!lowered) os.setPriority(backgroundNice(os.getPriority()));
    lowered = true;
    return os.getPriority();
  } catch {
    return null;
  }
}

/**
 * The nice value for a background thread started from the calling thread:
 * this thread's own when it is a background thread already, else one step
 * set below it; null off Linux.
 */
export function backgroundNiceFromHere(): number | null {
  if (process.platform !== "linux") return null;
  try {
    const nice = os.getPriority();
    return lowered ? nice : backgroundNice(nice);
  } catch {
    return null;
  }
}

/**
 * The same lowering as source text, for a thread whose program is a string
 * (checkpointer.ts): it reads the target from `workerData.nice`
 * (backgroundNiceFromHere of its creator) and never raises itself.
 */
export const LOWER_PRIORITY_PROGRAM = `if (process.platform === "linux" && typeof workerData.nice === "number") { try { const os = require("node:os"); if (os.getPriority() < workerData.nice) os.setPriority(workerData.nice); } catch {} }`;
