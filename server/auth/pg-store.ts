// The PostgreSQL implementation of the AuthStore, through the synchronous
// client (server/db/pg). Statements mirror sqlite-store.ts; a unique email
// is detected with `on conflict do nothing` because a failed statement
// would abort the whole PostgreSQL transaction.
import type { SqlClient } from "@/server/db/pg/client";
import { inWriterTransaction } from "@/server/db/pg/writer-lock";
import type { SessionUser } from "./current-user";
import type { AuthStore, ThrottleRecord, UserRecord } from "./store";

export function createPgAuthStore(client: SqlClient): AuthStore {
  const store: AuthStore = {
    writeTransaction: (fn) => inWriterTransaction(client, "auth", () => fn(store)),

    countUsers: () => client.one<{ n: number }>(`select count(*) as n from users`)!.n,

    insertUser(user) {
      const inserted = client.run(
        `insert into users (id, email, role, password_hash, created_at) values ($1, $2, $3, $4, $5) on conflict (email) do nothing`,
        [user.id, user.email, user.role, user.passwordHash, user.createdAt],
      );
      return inserted === 1 ? "inserted" : "email_taken";
    },

    findUserByEmail: (email) =>
      client.one<UserRecord>(`select id, email, role, password_hash as "passwordHash" from users where email = $1`, [email]),

    insertSession(session) {
      client.run(`insert into auth_sessions (token_hash, user_id, created_at_ms, expires_at_ms) values ($1, $2, $3, $4)`, [
        session.tokenHash,
        session.userId,
        session.createdAtMs,
        session.expiresAtMs,
      ]);
    },

    revokeSession: (session) =>
      client.run(`update auth_sessions set revoked_at_ms = $1 where token_hash = $2 and revoked_at_ms is null`, [
        session.nowMs,
        session.tokenHash,
      ]) > 0,

    pruneSessions: (options) => client.run(`delete from auth_sessions where expires_at_ms <= $1 or revoked_at_ms is not null`, [options.nowMs]),

    userForSession: (session) =>
      client.one<SessionUser>(
        `select u.id, u.email, u.role from auth_sessions s join users u on u.id = s.user_id
         where s.token_hash = $1 and s.revoked_at_ms is null and s.expires_at_ms > $2`,
        [session.tokenHash, session.nowMs],
      ),

    readThrottle: (key) =>
      client.one<ThrottleRecord>(
        `select key, failures, window_start_ms as "windowStartMs", locked_until_ms as "lockedUntilMs" from login_throttle where key = $1`,
        [key],
      ),

    saveThrottle(record) {
      client.run(
        `insert into login_throttle (key, failures, window_start_ms, locked_until_ms) values ($1, $2, $3, $4)
         on conflict (key) do update set failures = excluded.failures, window_start_ms = excluded.window_start_ms,
           locked_until_ms = excluded.locked_until_ms`,
        [record.key, record.failures, record.windowStartMs, record.lockedUntilMs],
      );
    },

    clearThrottle(key) {
      client.run(`delete from login_throttle where key = $1`, [key]);
    },
  };
  return store;
}
