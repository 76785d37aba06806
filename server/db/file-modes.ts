// The database holds password hashes and every payload: its file, WAL, SHM,
// backups and the folders we create for them are private to the server's
// user (0600 / 0700) whatever the umask. Existing looser files are tightened.
import fs from "node:fs";
import path from "node:path";

export const PRIVATE_FILE_MODE = 0o600;
export const PRIVATE_DIR_MODE = 0o700;

/** Group or others have some access. */
export function isLooserThanPrivate(mode: number): boolean {
  return (mode & 0o077) !== 0;
}

/**
 * chmods a regular file or directory to the private mode when group or others
 * can reach it; symlinks and missing paths are left alone. True when it changed.
 */
export function tightenPath(target: string): boolean {
  let stats: fs.Stats;
  try {
    stats = fs.lstatSync(target);
  } catch {
    return false;
  }
  if (!stats.isFile() && !stats.isDirectory()) return false;
  if (!isLooserThanPrivate(stats.mode)) return false;
  fs.chmodSync(target, stats.isDirectory() ? PRIVATE_DIR_MODE : PRIVATE_FILE_MODE);
  return true;
}

/**
 * Before SQLite opens `file`: creates a missing folder 0700 and a missing
 * database file 0600 (SQLite then gives the WAL and SHM the database file's
 * mode), and tightens an existing database, WAL and SHM. An existing folder
 * is not changed: it may be shared (the project root, /var/lib). Returns the
 * base names it tightened.
 */
export function prepareDatabaseFiles(file: string): string[] {
  const dir = path.dirname(file);
  if (!fs.existsSync(dir)) {
    fs.mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
    fs.chmodSync(dir, PRIVATE_DIR_MODE);
  }
  if (!fs.existsSync(file)) fs.closeSync(fs.openSync(file, "a", PRIVATE_FILE_MODE));
  return [file, `${file}-wal`, `${file}-shm`].filter(tightenPath).map((f) => path.basename(f));
}
