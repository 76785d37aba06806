import "server-only";
import type { Sqlite } from "@/server/db/client";

export const THROTTLE_WINDOW_MS = 15 * 60 * 1000;
export const THROTTLE_MAX_FAILURES = 5;

type ThrottleRow = { key: string; failures: number; windowStartMs: number; lockedUntilMs: number | null };

export function throttleKeys(options: { email: string; client: string }): string[] {
  return [`email:${options.email}`, `client:${options.client}`];
}

function readRow(sqlite: Sqlite, key: string): ThrottleRow | undefined {
  return sqlite
    .prepare(
      `select key, failures, window_start_ms as windowStartMs, locked_until_ms as lockedUntilMs from login_throttle where key = ?`,
    )
    .get(key) as ThrottleRow | undefined;
}

/** Milliseconds until any of the keys may try again, or 0 when none is locked. */
export function lockedForMs(sqlite: Sqlite, options: { keys: string[]; nowMs: number }): number {
  let wait = 0;
  for (const key of options.keys) {
    const row = readRow(sqlite, key);
    if (row?.lockedUntilMs != null && row.lockedUntilMs > options.nowMs) {
      wait = Math.max(wait, row.lockedUntilMs - options.nowMs);
    }
  }
  return wait;
}

/** Counts one failed sign-in against every key; the fifth failure in a window locks the key for a window. */
export function recordFailure(sqlite: Sqlite, options: { keys: string[]; nowMs: number }): void {
  const upsert = sqlite.prepare(
    `insert into login_throttle (key, failures, window_start_ms, locked_until_ms) values (@key, @failures, @windowStartMs, @lockedUntilMs)
     on conflict(key) do update set failures = excluded.failures, window_start_ms = excluded.window_start_ms,
       locked_until_ms = excluded.locked_until_ms`,
  );
  sqlite.transaction(() => {
    for (const key of options.keys) {
      const row = readRow(sqlite, key);
      const fresh = !row || options.nowMs - row.windowStartMs >= THROTTLE_WINDOW_MS;
      const failures = fresh ? 1 : row.failures + 1;
      const windowStartMs = fresh ? options.nowMs : row.windowStartMs;
      const lockedUntilMs = failures >= THROTTLE_MAX_FAILURES ? options.nowMs + THROTTLE_WINDOW_MS : null;
      upsert.run({ key, failures, windowStartMs, lockedUntilMs });
    }
  })();
}

/** A successful sign-in clears the email's counter (the client's stays, so one valid account cannot reset it). */
export function clearFailures(sqlite: Sqlite, options: { key: string }): void {
  sqlite.prepare(`delete from login_throttle where key = ?`).run(options.key);
}
