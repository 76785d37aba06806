// Child process for the crash tests: runs the real compaction worker against
// a database file and reports progress on stdout so the parent can SIGKILL
// it at a chosen point. Usage: compaction-child.ts <db-file> cleanup|backup
import { wrapSqliteDb } from "@/server/db/sqlite-db";
import { createSqliteMaintenanceStore } from "@/server/maintenance/sqlite-store";
import { openDatabase } from "@/server/db/client";
import { systemClock, systemTimers } from "@/server/clock";
import { createEventBus } from "@/server/events/bus";
import { randomIds } from "@/server/ids";
import { createLogger } from "@/server/log";
import { createMaintenanceGuard } from "@/server/maintenance/guard";
import { createBackup } from "@/server/maintenance/backups/create";
import { savePolicy } from "@/server/compaction/policy/policy-update";
import { createCompactionWorker } from "@/server/compaction/worker/worker";
import { createSqliteCompactionStore } from "@/server/compaction/store/sqlite-store";

const [file, mode] = process.argv.slice(2);
if (!file || (mode !== "cleanup" && mode !== "backup")) {
  process.stderr.write("usage: compaction-child.ts <db-file> cleanup|backup\n");
  process.exit(2);
}
const handle = openDatabase({ file });
const bus = createEventBus();
bus.subscribe((event) => {
  if (event.type === "messages_changed") process.stdout.write(`batch ${event.messageIds.length}\n`);
});
const store = createSqliteCompactionStore(wrapSqliteDb(handle, { reader: false }));
const worker = createCompactionWorker({
  store,
  maintenance: createSqliteMaintenanceStore(wrapSqliteDb(handle, { reader: false })),
  dbFile: file,
  clock: systemClock,
  timers: systemTimers,
  log: createLogger({ level: "silent" }),
  newId: randomIds,
  bus,
  guard: createMaintenanceGuard(),
  pass: { yieldMs: 20 },
  createBackupFn: (options) =>
    createBackup({
      ...options,
      afterSnapshot: async () => {
        process.stdout.write("snapshot-staged\n");
        // Hold the backup between snapshot and publication until killed.
        await new Promise(() => {});
      },
    }),
});
void (async () => {
  await worker.start();
  const { effects } = await savePolicy(store, {
    draft: { enabled: true, age: { value: 1, unit: "weeks" } },
    expectedRevision: 0,
    preparation: mode === "cleanup" ? "skip" : "backup",
    nowMs: systemClock.now(),
    newId: randomIds,
  });
  await worker.policySaved(effects);
  process.stdout.write("started\n");
})();
