// npm run migrate (also the first step of npm start): applies committed
// migrations to the DATABASE_URL database, SQLite (drizzle/) or PostgreSQL
// (drizzle/pg/), and exits. Under `--on-start` (npm start) an unreachable
// PostgreSQL server is reported but does not stop the start: the app then
// answers `unsupported` until it is restarted with the server up.
import { connectPg } from "@/server/db/pg/client";
import { readPgConfig } from "@/server/db/pg/config";
import { migratePg } from "@/server/db/pg/migrate";
import { parseDatabaseUrl, postgresUrlOf } from "@/server/db/url";
import { openConfiguredDatabase } from "./lib/database";

function migratePostgres(url: string): void {
  const config = readPgConfig(url);
  const client = connectPg({ url, timeouts: config.timeouts, applicationName: `${config.applicationName} migrate` });
  try {
    const applied = migratePg(client);
    console.log(applied.length ? `migrate: PostgreSQL database migrated (${applied.join(", ")})` : "migrate: PostgreSQL database is up to date");
  } finally {
    client.close();
  }
}

function main(): number {
  const postgresUrl = postgresUrlOf(process.env.DATABASE_URL);
  if (postgresUrl && process.argv.includes("--on-start")) {
    try {
      migratePostgres(postgresUrl);
    } catch (error) {
      console.error(`migrate: PostgreSQL is not reachable or not migratable (${(error as Error).message}); the app will answer unsupported`);
    }
    return 0;
  }
  if (postgresUrl) {
    migratePostgres(postgresUrl);
    return 0;
  }
  const target = parseDatabaseUrl(process.env.DATABASE_URL);
  if (target.engine !== "sqlite") throw new Error("DATABASE_URL names an unsupported engine");
  const handle = openConfiguredDatabase();
  handle.sqlite.close();
  console.log(`migrate: ${target.file} is up to date`);
  return 0;
}

try {
  process.exit(main());
} catch (error) {
  console.error(`migrate: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
