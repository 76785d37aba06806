// npm run migrate (also the first step of npm start): applies committed
// migrations to the DATABASE_URL database and exits.
import { parseDatabaseUrl } from "@/server/db/url";
import { openConfiguredDatabase } from "./lib/database";

function main(): number {
  const target = parseDatabaseUrl(process.env.DATABASE_URL);
  if (target.engine !== "sqlite") {
    // The server still starts and reports the engine as unsupported.
    console.log("migrate: DATABASE_URL is not SQLite; nothing to migrate");
    return 0;
  }
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
