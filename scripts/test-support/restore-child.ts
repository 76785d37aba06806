// Child process for the per-task restore crash test: runs the real restore
// (the service verb a route and the CLI call, two rows per batch) on a
// database file and reports progress on stdout so the parent can SIGKILL it
// at a chosen point. The database is the environment's (DATABASE_URL, and
// DATA_DIR for PostgreSQL's backups), as for the server.
//   DATABASE_URL=... restore-child.ts <task-id> between-batches|mid-batch
// between-batches: stops forever right after the third batch committed;
// mid-batch: stops forever inside the third batch's writer transaction,
// after its first row was written and before the commit. Nothing waits for
// time: the parent kills the child at the state it prints.
import { createMigratedRuntime, openRuntime } from "@/server/runtime";
import { createLogger } from "@/server/log";
import { startPayloadRestore } from "@/server/compaction/restore/service";

const [taskId, mode] = process.argv.slice(2);
if (!process.env.DATABASE_URL || !taskId || (mode !== "between-batches" && mode !== "mid-batch")) {
  process.stderr.write("usage: DATABASE_URL=... restore-child.ts <task-id> between-batches|mid-batch\n");
  process.exit(2);
}
async function main(): Promise<void> {
  const rt = openRuntime(
    await createMigratedRuntime({
      env: { DATABASE_URL: process.env.DATABASE_URL, DATA_DIR: process.env.DATA_DIR },
      log: createLogger({ level: "silent" }),
      payloadRestore: { batch: { rows: 2, bytes: 8 * 1024 * 1024 } },
    }),
  );
  if (!rt) throw new Error("the database did not open");
  let commits = 0;
  rt.bus.subscribe((event) => {
    if (event.type !== "messages_changed") return;
    commits += 1;
    process.stdout.write(`batch ${event.messageIds.length}\n`);
    if (mode === "between-batches" && commits === 3) {
      process.stdout.write("between-batches\n");
      // The event is published synchronously after the commit: blocking here holds the restore between two batches until the kill.
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
    }
  });
  if (mode === "mid-batch") {
    const store = rt.stores.restores;
    let written = 0;
    rt.stores.restores = {
      ...store,
      restoreRow: async (write) => {
        const done = await store.restoreRow(write);
        written += 1;
        if (written === 5) {
          process.stdout.write("mid-batch\n");
          await new Promise(() => {});
        }
        return done;
      },
    };
  }
  void startPayloadRestore(rt, { taskId: taskId!, body: {}, actor: "cli" }).then(async ({ done }) => {
    process.stdout.write("started\n");
    await done;
    process.stdout.write("done\n");
  });
}

void main();
