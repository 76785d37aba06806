// npm run migrate (also the first step of npm start): applies committed
// migrations to the DATABASE_URL database, SQLite (drizzle/) or PostgreSQL
// (drizzle/pg/), and exits. Under `--on-start` (npm start) an unreachable
// PostgreSQL server is reported but does not stop the start: the app then
// answers `unsupported` until it is restarted with the server up.
import { readPgConfig } from "@/server/db/pg/config";
import { applyPgMigrations } from "@/server/db/pg/migrate";
import { createPgDb } from "@/server/db/pg/pg-db";
import { parseDatabaseUrl, postgresUrlOf } from "@/server/db/url";
import { openConfiguredDatabase } from "./lib/database";

async function migratePostgres(url: string): Promise<void> {
  const config = readPgConfig(url);
  // One session: the migration is one transaction.
  const db = createPgDb({ ...config, poolMax: 1, applicationName: `${config.applicationName} migrate` });
  try {
    const applied = await applyPgMigrations(db);
    console.log(applied.length ? `migrate: PostgreSQL database migrated (${applied.join(", ")})` : "migrate: PostgreSQL database is up to date");
  } finally {
    await db.close();
  }
}

async function main(): Promise<number> {
  const postgresUrl = postgresUrlOf(process.env.DATABASE_URL);
  if (postgresUrl && process.argv.includes("--on-start")) {
    try {
      await migratePostgres(postgresUrl);
    } catch (error) {
      console.error(`migrate: PostgreSQL is not reachable or not migratable (${(error as Error).message}); the app will answer unsupported`);
    }
    return 0;
  }
  if (postgresUrl) {
    await migratePostgres(postgresUrl);
    return 0;
  }
  const target = parseDatabaseUrl(process.env.DATABASE_URL);
  if (target.engine !== "sqlite") throw new Error("DATABASE_URL names an unsupported engine");
  const handle = openConfiguredDatabase();
  handle.sqlite.close();
  console.log(`migrate: ${target.file} is up to date`);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`migrate: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
