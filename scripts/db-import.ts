// npm run db:import -- FILE.json
// Imports a workspace fixture into DATABASE_URL (SQLite file: or PostgreSQL)
// in one transaction. A bad file exits 1 with one readable line naming the
// file and JSON path (no stack), and leaves the database unchanged.
import fs from "node:fs";
import { openDatabase } from "@/server/db/client";
import { readPgConfig } from "@/server/db/pg/config";
import { applyPgMigrations } from "@/server/db/pg/migrate";
import { createPgDb } from "@/server/db/pg/pg-db";
import { parseDatabaseUrl } from "@/server/db/url";
import { wrapSqliteDb } from "@/server/db/sqlite-db";
import { FixtureError } from "@/server/workspace/fixture/fixture-error";
import { importFixture } from "@/server/workspace/fixture/import-fixture";
import { createPgWorkspaceStore } from "@/server/workspace/pg-store";
import { createSqliteWorkspaceStore } from "@/server/workspace/sqlite-store";
import type { WorkspaceStore } from "@/server/workspace/store";

function fail(message: string): never {
  process.stderr.write(`db:import: ${message}\n`);
  process.exit(1);
}

type Target = { store: WorkspaceStore; close(): Promise<void> };

/** The workspace store of DATABASE_URL; PostgreSQL is migrated first, as the server does at start. */
async function openTarget(): Promise<Target> {
  const target = parseDatabaseUrl(process.env.DATABASE_URL);
  if (target.engine === "sqlite") {
    const handle = openDatabase({ file: target.file });
    return { store: createSqliteWorkspaceStore(wrapSqliteDb(handle, { reader: false })), close: async () => void handle.sqlite.close() };
  }
  if (target.engine === "postgres") {
    const config = readPgConfig(target.url);
    // One session: the import is one transaction.
    const db = createPgDb({ ...config, poolMax: 1, applicationName: `${config.applicationName} db:import` });
    try {
      await applyPgMigrations(db);
    } catch (error) {
      await db.close().catch(() => undefined);
      throw error;
    }
    return { store: createPgWorkspaceStore(db), close: () => db.close() };
  }
  throw new Error("DATABASE_URL names an unsupported engine");
}

async function main(argv: string[]): Promise<void> {
  const args = argv.filter((a) => a !== "--");
  if (args.length !== 1) fail("usage: npm run db:import -- FILE.json");
  const file = args[0]!;
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (error) {
    fail(`${file}: cannot read file (${(error as NodeJS.ErrnoException).code ?? "error"})`);
  }
  let target: Target;
  try {
    target = await openTarget();
  } catch (error) {
    // Configuration problems (bad URL, unwritable directory, unreachable server) get one line too; the driver's
    // message names host and user, never the password.
    fail(`cannot open the database: ${error instanceof Error ? error.message : "unknown error"}`);
  }
  let failure: string | null = null;
  try {
    const counts = await importFixture(target.store, { file, text });
    process.stdout.write(
      `Imported ${file}: ${counts.tasks} tasks, ${counts.sessions} sessions, ${counts.turns} turns, ` +
        `${counts.messages} messages, ${counts.queuedMessages} queued messages, ${counts.runs} runs\n`,
    );
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    failure =
      error instanceof FixtureError
        ? error.message
        : `${file}: import failed (${error instanceof Error ? error.name : "error"}${code ? ` ${String(code)}` : ""}); database unchanged`;
  } finally {
    await target.close();
  }
  if (failure) fail(failure);
}

void main(process.argv.slice(2));
