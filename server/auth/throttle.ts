import "server-only";
import type { AuthStore } from "./store";

export const THROTTLE_WINDOW_MS = 15 * 60 * 1000;
export const THROTTLE_MAX_FAILURES = 5;

export function throttleKeys(options: { email: string; client: string }): string[] {
  return [`email:${options.email}`, `client:${options.client}`];
}

/** Milliseconds until any of the keys may try again, or 0 when none is locked. */
export function lockedForMs(store: AuthStore, options: { keys: string[]; nowMs: number }): number {
  let wait = 0;
  for (const key of options.keys) {
    const row = store.readThrottle(key);
    if (row?.lockedUntilMs != null && row.lockedUntilMs > options.nowMs) {
      wait = Math.max(wait, row.lockedUntilMs - options.nowMs);
    }
  }
  return wait;
}

/** Counts one failed sign-in against every key; the fifth failure in a window locks the key for a window. */
export function recordFailure(store: AuthStore, options: { keys: string[]; nowMs: number }): void {
  store.writeTransaction((tx) => {
    for (const key of options.keys) {
      const row = tx.readThrottle(key);
      const fresh = !row || options.nowMs - row.windowStartMs >= THROTTLE_WINDOW_MS;
      const failures = fresh ? 1 : row.failures + 1;
      const windowStartMs = fresh ? options.nowMs : row.windowStartMs;
      const lockedUntilMs = failures >= THROTTLE_MAX_FAILURES ? options.nowMs + THROTTLE_WINDOW_MS : null;
      tx.saveThrottle({ key, failures, windowStartMs, lockedUntilMs });
    }
  });
}

/** A successful sign-in clears the email's counter (the client's stays, so one valid account cannot reset it). */
export function clearFailures(store: AuthStore, options: { key: string }): void {
  store.clearThrottle(options.key);
}
