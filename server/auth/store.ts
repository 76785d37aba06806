// The auth domain's data access: users, sign-in sessions and the login
// throttle. Domain modules call these verbs only; the SQL lives in the
// implementation (sqlite-store.ts).
//
// Synchronous on purpose: the SQLite driver is synchronous, and a later
// PostgreSQL implementation satisfies the same interface through a
// synchronous libpq binding, so check-then-write steps run inside
// `writeTransaction` without ever awaiting.
export type Role = "admin" | "viewer";
export type SessionUser = { id: string; email: string; role: Role };

export type UserRecord = { id: string; email: string; role: Role; passwordHash: string };
export type ThrottleRecord = { key: string; failures: number; windowStartMs: number; lockedUntilMs: number | null };

export type AuthStore = {
  /** Runs `fn` in a writer transaction (taken at the start); nested calls join it. */
  writeTransaction<T>(fn: (tx: AuthStore) => T): T;

  countUsers(): number;
  /** "email_taken" when another user already has this (normalized) email. */
  insertUser(user: UserRecord & { createdAt: string }): "inserted" | "email_taken";
  findUserByEmail(email: string): UserRecord | null;

  insertSession(session: { tokenHash: string; userId: string; createdAtMs: number; expiresAtMs: number }): void;
  /** True when a live session was revoked. */
  revokeSession(session: { tokenHash: string; nowMs: number }): boolean;
  /** Deletes expired and revoked sessions; returns how many. */
  pruneSessions(options: { nowMs: number }): number;
  /** The user of an unexpired, unrevoked session, or null. */
  userForSession(session: { tokenHash: string; nowMs: number }): SessionUser | null;

  readThrottle(key: string): ThrottleRecord | null;
  saveThrottle(record: ThrottleRecord): void;
  clearThrottle(key: string): void;
};
