// Child process for the crash test: starts a backup and parks right after the
// snapshot was staged, announcing it on stdout, until the parent SIGKILLs it.
import { wrapSqliteDb } from "@/server/db/sqlite-db";
import { createBackup } from "@/server/maintenance/backups/create";
import { openDatabase } from "@/server/db/client";
import { createLogger } from "@/server/log";
import { createMaintenanceGuard } from "@/server/maintenance/guard";
import { createSqliteMaintenanceStore } from "@/server/maintenance/sqlite-store";

const dbFile = process.argv[2] ?? "";
void createBackup({
  store: createSqliteMaintenanceStore(wrapSqliteDb(openDatabase({ file: dbFile, readonly: true }), { reader: false })),
  dbFile,
  clock: { now: () => Date.parse("2026-11-29T22:30:00Z") },
  label: "preparation",
  guard: createMaintenanceGuard(),
  log: createLogger({ level: "silent" }),
  afterSnapshot: (stagingFile) =>
    new Promise<void>(() => {
      process.stdout.write(`staged ${stagingFile}\n`);
    }),
});
