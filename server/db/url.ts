import path from "node:path";

export type DatabaseTarget =
  | { engine: "sqlite"; file: string }
  | { engine: "postgres"; url: string }
  | { engine: "unsupported"; scheme: string };

export const DEFAULT_DATABASE_URL = "file:./data/workspace.db";

/** Reads DATABASE_URL without touching any database: `file:` selects SQLite, `postgres://` / `postgresql://` PostgreSQL. */
export function parseDatabaseUrl(raw: string | undefined, cwd: string = process.cwd()): DatabaseTarget {
  const url = (raw ?? "").trim() || DEFAULT_DATABASE_URL;
  if (/^postgres(ql)?:\/\//i.test(url)) return { engine: "postgres", url };
  if (!url.startsWith("file:")) {
    throw new Error(`DATABASE_URL must start with file: or postgres:// (got scheme "${url.split(":")[0]}")`);
  }
  let file = url.slice("file:".length);
  if (file.startsWith("//")) file = file.slice(2);
  if (!file) throw new Error("DATABASE_URL file: path is empty");
  return { engine: "sqlite", file: path.resolve(cwd, file) };
}

/** The URL itself when DATABASE_URL names PostgreSQL (for `npm run migrate`), else null. */
export function postgresUrlOf(raw: string | undefined): string | null {
  const url = (raw ?? "").trim();
  return /^postgres(ql)?:\/\//i.test(url) ? url : null;
}

/** Backups live in backups/ beside the database file. */
export function backupsDirFor(file: string): string {
  return path.join(path.dirname(file), "backups");
}

/**
 * The path backups hang off for a PostgreSQL database (backups/ beside it):
 * `DATA_DIR` (default ./data) holds no database file, only backups/.
 */
export function postgresDataAnchor(env: Readonly<Record<string, string | undefined>>, cwd: string = process.cwd()): string {
  return path.join(path.resolve(cwd, env.DATA_DIR?.trim() || "data"), "postgres");
}
