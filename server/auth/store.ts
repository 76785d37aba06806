// The auth domain's data access: users, sign-in sessions and the login
// throttle. Domain modules call these verbs only; the SQL lives in the
// implementations (sqlite-store.ts, pg-store.ts).
//
// Every verb returns a Promise (the asynchronous store boundary, #27):
// `writeTransaction` holds one connection for its whole async callback, so
// check-then-write steps (the last enabled admin) stay atomic across awaits.
export type Role = "admin" | "viewer";
export type SessionUser = { id: string; email: string; role: Role; mustChangePassword: boolean };

export type UserRecord = {
  id: string;
  email: string;
  role: Role;
  passwordHash: string;
  createdAt: string;
  /** Set while the account is disabled. */
  disabledAtMs: number | null;
  /** An admin chose the current password: the user must replace it before anything else. */
  mustChangePassword: boolean;
};
export type NewUserRecord = Omit<UserRecord, "disabledAtMs" | "mustChangePassword"> & { mustChangePassword?: boolean };
/** A user with what the sessions table says about them. */
export type UserOverview = UserRecord & { liveSessions: number; lastSeenAtMs: number | null };

export type UserChange = {
  id: string;
  role?: Role;
  disabledAtMs?: number | null;
  passwordHash?: string;
  mustChangePassword?: boolean;
};

export type NewSession = { tokenHash: string; id: string; userId: string; createdAtMs: number; expiresAtMs: number; client: string | null };
export type SessionRecord = { id: string; userId: string; createdAtMs: number; lastSeenAtMs: number; expiresAtMs: number; client: string | null };
export type LiveSession = SessionRecord & { user: SessionUser };

/**
 * A session is live while it is not revoked, not past its absolute expiry,
 * was seen after `idleSinceMs` (now minus the idle timeout) and its user is
 * not disabled. Every read of sessions below applies the same rule.
 */
export type LiveAt = { nowMs: number; idleSinceMs: number };

export type ThrottleRecord = { key: string; failures: number; windowStartMs: number; lockedUntilMs: number | null };

export type AuthStore = {
  /** Runs `fn` in a writer transaction (taken at the start); nested calls, of any store, join it. */
  writeTransaction<T>(fn: (tx: AuthStore) => Promise<T> | T): Promise<T>;

  countUsers(): Promise<number>;
  /** Enabled users whose role is admin. */
  countEnabledAdmins(): Promise<number>;
  /** "email_taken" when another user already has this (normalized) email. */
  insertUser(user: NewUserRecord): Promise<"inserted" | "email_taken">;
  findUserByEmail(email: string): Promise<UserRecord | null>;
  findUserById(id: string): Promise<UserRecord | null>;
  /** Every user, by email, with their live session count and latest activity. */
  listUsers(at: LiveAt): Promise<UserOverview[]>;
  /** Applies the given fields; false when no such user. */
  updateUser(change: UserChange): Promise<boolean>;

  insertSession(session: NewSession): Promise<void>;
  /** True when a live session was revoked. */
  revokeSession(session: { tokenHash: string; nowMs: number }): Promise<boolean>;
  /** Revokes one session of `userId` by its id; false when there is none unrevoked. */
  revokeSessionById(session: { id: string; userId: string; nowMs: number }): Promise<boolean>;
  /** Revokes every unrevoked session of the user (but `exceptId`); returns how many. */
  revokeUserSessions(options: { userId: string; nowMs: number; exceptId?: string | null }): Promise<number>;
  /** Deletes sessions that can no longer be used (expired, idle, revoked); returns how many. */
  pruneSessions(at: LiveAt): Promise<number>;
  /** The live session of a token hash with its user, or null. */
  sessionForToken(session: { tokenHash: string } & LiveAt): Promise<LiveSession | null>;
  /** Records activity on a session (the idle timeout starts again). */
  touchSession(session: { id: string; nowMs: number }): Promise<void>;
  /** Live sessions of one user, newest first. */
  listSessions(options: { userId: string } & LiveAt): Promise<SessionRecord[]>;
  /** Of the given session ids, the live ones and their user's current role. */
  liveSessionsAmong(options: { ids: readonly string[] } & LiveAt): Promise<{ id: string; role: Role }[]>;

  readThrottle(key: string): Promise<ThrottleRecord | null>;
  saveThrottle(record: ThrottleRecord): Promise<void>;
  clearThrottle(key: string): Promise<void>;
  /**
   * Deletes the rows whose key starts with `prefix`, whose window started
   * before `windowStartBeforeMs` and whose lock (if any) ended by `nowMs`;
   * returns how many.
   */
  deleteThrottleBefore(options: { prefix: string; windowStartBeforeMs: number; nowMs: number }): Promise<number>;
};

/** The keys of a prefix are those in [prefix, prefixEnd(prefix)): a range an index serves. */
export function prefixEnd(prefix: string): string {
  return prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
}
