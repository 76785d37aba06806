// npm run db:import -- FILE.json
// Imports a workspace fixture into DATABASE_URL in one transaction. A bad file
// exits 1 with one readable line naming the file and JSON path (no stack),
// and leaves the database unchanged.
import fs from "node:fs";
import { openDatabase, type DbHandle } from "@/server/db/client";
import { parseDatabaseUrl } from "@/server/db/url";
import { FixtureError } from "@/server/workspace/fixture/fixture-error";
import { importFixture } from "@/server/workspace/fixture/import-fixture";
import { createSqliteWorkspaceStore } from "@/server/workspace/sqlite-store";
import { wrapSqliteDb } from "@/server/db/sqlite-db";

function fail(message: string): never {
  process.stderr.write(`db:import: ${message}\n`);
  process.exit(1);
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
  let handle: DbHandle;
  try {
    const target = parseDatabaseUrl(process.env.DATABASE_URL);
    if (target.engine !== "sqlite") fail("DATABASE_URL names an unsupported engine; only SQLite (file:) can import");
    handle = openDatabase({ file: target.file });
  } catch (error) {
    // Configuration problems (bad URL, unwritable directory) get one line too.
    fail(`cannot open the database: ${error instanceof Error ? error.message : "unknown error"}`);
  }
  try {
    const counts = await importFixture(createSqliteWorkspaceStore(wrapSqliteDb(handle, { reader: false })), { file, text });
    process.stdout.write(
      `Imported ${file}: ${counts.tasks} tasks, ${counts.sessions} sessions, ${counts.turns} turns, ` +
        `${counts.messages} messages, ${counts.queuedMessages} queued messages, ${counts.runs} runs\n`,
    );
  } catch (error) {
    if (error instanceof FixtureError) fail(error.message);
    const code = (error as { code?: unknown }).code;
    fail(`${file}: import failed (${error instanceof Error ? error.name : "error"}${code ? ` ${String(code)}` : ""}); database unchanged`);
  } finally {
    handle.sqlite.close();
  }
}

void main(process.argv.slice(2));
