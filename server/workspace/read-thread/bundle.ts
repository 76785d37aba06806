// Where the read thread's bundle is (npm run build writes it beside the
// cleanup thread's), and whether it may be used: present, and not older
// than the sources it was built from.
import fs from "node:fs";
import path from "node:path";
import type { Logger } from "@/server/log";
import { isStale } from "@/server/compaction/thread/thread-config";

export function defaultReadThreadBundle(root: string = process.cwd()): string {
  return path.join(root, "dist", "read-thread.cjs");
}

/** The bundle to start read threads from, or null (the tasks then run on the server's thread); the runtime asks once, so a stale bundle is said once. */
export function readThreadBundleFromDisk(options: { log: Pick<Logger, "warn">; bundlePath?: string; root?: string }): string | null {
  const bundlePath = options.bundlePath ?? defaultReadThreadBundle();
  if (!fs.existsSync(/*turbopackIgnore: true*/ bundlePath)) return null;
  if (isStale(bundlePath, options.root ?? process.cwd())) {
    options.log.warn({ event: "read_thread_stale" }, "shell output, export and the conversation view run on the server's thread: the read thread bundle is older than its sources (npm run build rewrites it)");
    return null;
  }
  return bundlePath;
}
