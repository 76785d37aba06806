// The SQLite implementation of the AuthStore. Statements come from the
// per-connection cache, so a store is cheap to create per request.
import type { Sqlite } from "@/server/db/client";
import { statement } from "@/server/db/statements";
import type { SessionUser } from "./store";
import type { AuthStore, ThrottleRecord, UserRecord } from "./store";

export function createSqliteAuthStore(sqlite: Sqlite): AuthStore {
  // Nested calls become savepoints of the outer transaction.
  const inTransaction = sqlite.transaction((fn: (tx: AuthStore) => unknown) => fn(store));

  const store: AuthStore = {
    writeTransaction: <T>(fn: (tx: AuthStore) => T): T => inTransaction.immediate(fn) as T,

    countUsers: () => (statement(sqlite, `select count(*) as n from users`).get() as { n: number }).n,

    insertUser(user) {
      try {
        statement(sqlite, `insert into users (id, email, role, password_hash, created_at) values (?, ?, ?, ?, ?)`).run(
          user.id,
          user.email,
          user.role,
          user.passwordHash,
          user.createdAt,
        );
        return "inserted";
      } catch (error) {
        if ((error as { code?: string }).code === "SQLITE_CONSTRAINT_UNIQUE") return "email_taken";
        throw error;
      }
    },

    findUserByEmail(email) {
      const row = statement(sqlite, `select id, email, role, password_hash as passwordHash from users where email = ?`).get(email) as
        | UserRecord
        | undefined;
      return row ?? null;
    },

    insertSession(session) {
      statement(sqlite, `insert into auth_sessions (token_hash, user_id, created_at_ms, expires_at_ms) values (?, ?, ?, ?)`).run(
        session.tokenHash,
        session.userId,
        session.createdAtMs,
        session.expiresAtMs,
      );
    },

    revokeSession: (session) =>
      statement(sqlite, `update auth_sessions set revoked_at_ms = ? where token_hash = ? and revoked_at_ms is null`).run(
        session.nowMs,
        session.tokenHash,
      ).changes > 0,

    pruneSessions: (options) =>
      statement(sqlite, `delete from auth_sessions where expires_at_ms <= ? or revoked_at_ms is not null`).run(options.nowMs).changes,

    userForSession(session) {
      const row = statement(
        sqlite,
        `select u.id, u.email, u.role from auth_sessions s join users u on u.id = s.user_id
         where s.token_hash = ? and s.revoked_at_ms is null and s.expires_at_ms > ?`,
      ).get(session.tokenHash, session.nowMs) as SessionUser | undefined;
      return row ?? null;
    },

    readThrottle(key) {
      const row = statement(
        sqlite,
        `select key, failures, window_start_ms as windowStartMs, locked_until_ms as lockedUntilMs from login_throttle where key = ?`,
      ).get(key) as ThrottleRecord | undefined;
      return row ?? null;
    },

    saveThrottle(record) {
      statement(
        sqlite,
        `insert into login_throttle (key, failures, window_start_ms, locked_until_ms) values (@key, @failures, @windowStartMs, @lockedUntilMs)
         on conflict(key) do update set failures = excluded.failures, window_start_ms = excluded.window_start_ms,
           locked_until_ms = excluded.locked_until_ms`,
      ).run(record);
    },

    clearThrottle(key) {
      statement(sqlite, `delete from login_throttle where key = ?`).run(key);
    },
  };
  return store;
}
