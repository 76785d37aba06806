// Child process for the thread-lifetime test: uses the SQLite maintenance
// thread (both lanes) and, given a bundle, the read-thread pool, then simply
// returns without stopping anything. The threads are unref'd, so the process
// must exit by itself once its own work is done; "done" marks the end of it.
import { createLogger } from "@/server/log";
import { readInThread, runSqliteThread } from "@/server/maintenance/sqlite-thread";
import { createReadThreads } from "@/server/workspace/read-thread/pool";

async function main(): Promise<void> {
  const [dbFile = "", bundlePath = ""] = process.argv.slice(2);
  await readInThread(dbFile, [{ sql: "select count(*) as n from messages", params: [] }]);
  await runSqliteThread({ kind: "integrity-check", file: dbFile });
  const threads = createReadThreads({ bundlePath, log: createLogger({ level: "silent" }) });
  // A missing message: answered (as not_found) by the thread all the same.
  const code = await threads.answer({ engine: "sqlite", file: dbFile }, { kind: "shell-output", messageId: "absent" }).then(
    () => "answered",
    (error: unknown) => (error as { code?: string }).code,
  );
  if (code !== "not_found") throw new Error(`unexpected answer ${code}`);
  if (threads.stats().onThread !== 1) throw new Error("the read did not run on a thread");
  process.stdout.write("done\n");
}

void main();
