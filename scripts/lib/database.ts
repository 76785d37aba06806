// Shared by the CLI scripts: open the DATABASE_URL database with migrations applied.
import { openDatabase, type DbHandle } from "@/server/db/client";
import { parseDatabaseUrl } from "@/server/db/url";

export function openConfiguredDatabase(env: NodeJS.ProcessEnv = process.env): DbHandle {
  const target = parseDatabaseUrl(env.DATABASE_URL);
  if (target.engine !== "sqlite") {
    throw new Error("DATABASE_URL names an unsupported engine; only file: SQLite databases can be migrated or seeded");
  }
  return openDatabase({ file: target.file });
}
