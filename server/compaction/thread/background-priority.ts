// The cleanup pass's threads run at a lower scheduling priority than the
// server's request thread, so a status read that arrives while a pass keeps
// both cores busy is scheduled first. On Linux a nice value belongs to a
// thread, and setpriority on the calling thread (who = 0) lowers that thread
// only; elsewhere the same call would lower the whole process, the request
// thread included, so it is made on Linux only. Raising a nice value needs
// no privilege. The value is a weight, not a cap: on an idle machine the
// threads still get whole cores.
import "server-only";
import os from "node:os";

/** Nice value of the pass's threads (0 is the server's; 19 the lowest). */
export const PASS_THREAD_NICE = 10;

/**
 * The same call as source text, for a thread whose program is a string
 * (checkpointer.ts): `require` is that program's.
 */
export const LOWER_PRIORITY_PROGRAM = `if (process.platform === "linux") { try { require("node:os").setPriority(${PASS_THREAD_NICE}); } catch {} }`;

/** Lowers the calling thread's priority; its nice value after, or null where it was left alone (not Linux, or refused). */
export function lowerThreadPriority(): number | null {
  if (process.platform !== "linux") return null;
  try {
    os.setPriority(PASS_THREAD_NICE);
    // On Linux getpriority(who = 0) reads the calling thread's own value.
    return os.getPriority();
  } catch {
    return null;
  }
}
