// The PostgreSQL implementation of the AuthStore, on the node-postgres pool
// (server/db/pg/pg-db.ts). Statements mirror sqlite-store.ts; a unique email
// is detected with `on conflict do nothing` because a failed statement
// would abort the whole PostgreSQL transaction.
import type { PgDb } from "@/server/db/pg/pg-db";
import { writerTransaction } from "@/server/db/pg/writer-lock";
import { prefixEnd, type AuthStore, type LiveSession, type Role, type SessionRecord, type ThrottleRecord, type UserOverview, type UserRecord } from "./store";

const userColumns = (t: string) => `${t}.id, ${t}.email, ${t}.role, ${t}.password_hash as "passwordHash", ${t}.created_at as "createdAt",
  ${t}.disabled_at_ms as "disabledAtMs", ${t}.must_change_password as "mustChangePassword"`;
const SESSION_COLUMNS = `s.id, s.user_id as "userId", s.created_at_ms as "createdAtMs",
  coalesce(s.last_seen_at_ms, s.created_at_ms) as "lastSeenAtMs", s.expires_at_ms as "expiresAtMs", s.client`;
/** The one liveness rule (store.ts, LiveAt), with now and idle-since as parameters $n and $m. */
const live = (now: number, idleSince: number) => `s.revoked_at_ms is null and s.expires_at_ms > $${now}
  and coalesce(s.last_seen_at_ms, s.created_at_ms) > $${idleSince} and u.disabled_at_ms is null`;

export function createPgAuthStore(db: PgDb): AuthStore {
  const store: AuthStore = {
    writeTransaction: (fn) => writerTransaction(db, "auth", () => fn(store)),

    countUsers: async () => (await db.one<{ n: number }>(`select count(*) as n from users`))!.n,

    countEnabledAdmins: async () => (await db.one<{ n: number }>(`select count(*) as n from users where role = 'admin' and disabled_at_ms is null`))!.n,

    async insertUser(user) {
      const inserted = await db.run(
        `insert into users (id, email, role, password_hash, created_at, must_change_password) values ($1, $2, $3, $4, $5, $6)
         on conflict (email) do nothing`,
        [user.id, user.email, user.role, user.passwordHash, user.createdAt, user.mustChangePassword ?? false],
      );
      return inserted === 1 ? "inserted" : "email_taken";
    },

    findUserByEmail: (email) => db.one<UserRecord>(`select ${userColumns("u")} from users u where u.email = $1`, [email]),

    findUserById: (id) => db.one<UserRecord>(`select ${userColumns("u")} from users u where u.id = $1`, [id]),

    listUsers: (at) =>
      db.query<UserOverview>(
        `select ${userColumns("u")},
           (select count(*) from auth_sessions s where s.user_id = u.id and ${live(1, 2)}) as "liveSessions",
           (select max(coalesce(s.last_seen_at_ms, s.created_at_ms)) from auth_sessions s where s.user_id = u.id) as "lastSeenAtMs"
         from users u order by u.email`,
        [at.nowMs, at.idleSinceMs],
      ),

    async updateUser(change) {
      const sets: string[] = [];
      const values: unknown[] = [change.id];
      const set = (column: string, value: unknown) => {
        values.push(value);
        sets.push(`${column} = $${values.length}`);
      };
      if (change.role !== undefined) set("role", change.role);
      if (change.disabledAtMs !== undefined) set("disabled_at_ms", change.disabledAtMs);
      if (change.passwordHash !== undefined) set("password_hash", change.passwordHash);
      if (change.mustChangePassword !== undefined) set("must_change_password", change.mustChangePassword);
      if (sets.length === 0) return (await store.findUserById(change.id)) !== null;
      return (await db.run(`update users set ${sets.join(", ")} where id = $1`, values)) > 0;
    },

    async insertSession(session) {
      await db.run(
        `insert into auth_sessions (token_hash, id, user_id, created_at_ms, expires_at_ms, last_seen_at_ms, client)
         values ($1, $2, $3, $4, $5, $4, $6)`,
        [session.tokenHash, session.id, session.userId, session.createdAtMs, session.expiresAtMs, session.client],
      );
    },

    revokeSession: async (session) =>
      (await db.run(`update auth_sessions set revoked_at_ms = $1 where token_hash = $2 and revoked_at_ms is null`, [
        session.nowMs,
        session.tokenHash,
      ])) > 0,

    revokeSessionById: async (session) =>
      (await db.run(`update auth_sessions set revoked_at_ms = $1 where id = $2 and user_id = $3 and revoked_at_ms is null`, [
        session.nowMs,
        session.id,
        session.userId,
      ])) > 0,

    revokeUserSessions: (options) =>
      db.run(
        `update auth_sessions set revoked_at_ms = $1
         where user_id = $2 and revoked_at_ms is null and ($3::text is null or id is distinct from $3::text)`,
        [options.nowMs, options.userId, options.exceptId ?? null],
      ),

    pruneSessions: (at) =>
      db.run(
        `delete from auth_sessions where revoked_at_ms is not null or expires_at_ms <= $1
           or coalesce(last_seen_at_ms, created_at_ms) <= $2`,
        [at.nowMs, at.idleSinceMs],
      ),

    async sessionForToken(session) {
      const row = await db.one<SessionRecord & { email: string; role: Role; mustChangePassword: boolean }>(
        `select ${SESSION_COLUMNS}, u.email, u.role, u.must_change_password as "mustChangePassword"
         from auth_sessions s join users u on u.id = s.user_id
         where s.token_hash = $3 and ${live(1, 2)}`,
        [session.nowMs, session.idleSinceMs, session.tokenHash],
      );
      if (!row) return null;
      const { email, role, mustChangePassword, ...record } = row;
      const found: LiveSession = { ...record, user: { id: record.userId, email, role, mustChangePassword } };
      return found;
    },

    async touchSession(session) {
      await db.run(`update auth_sessions set last_seen_at_ms = $1 where id = $2 and revoked_at_ms is null`, [session.nowMs, session.id]);
    },

    listSessions: (options) =>
      db.query<SessionRecord>(
        `select ${SESSION_COLUMNS} from auth_sessions s join users u on u.id = s.user_id
         where s.user_id = $3 and ${live(1, 2)} order by s.created_at_ms desc, s.id`,
        [options.nowMs, options.idleSinceMs, options.userId],
      ),

    async liveSessionsAmong(options) {
      if (options.ids.length === 0) return [];
      return db.query<{ id: string; role: Role }>(
        `select s.id, u.role from auth_sessions s join users u on u.id = s.user_id
         where s.id in (select value from json_array_elements_text($3::json)) and ${live(1, 2)}`,
        [options.nowMs, options.idleSinceMs, JSON.stringify(options.ids)],
      );
    },

    readThrottle: (key) =>
      db.one<ThrottleRecord>(
        `select key, failures, window_start_ms as "windowStartMs", locked_until_ms as "lockedUntilMs" from login_throttle where key = $1`,
        [key],
      ),

    async saveThrottle(record) {
      await db.run(
        `insert into login_throttle (key, failures, window_start_ms, locked_until_ms) values ($1, $2, $3, $4)
         on conflict (key) do update set failures = excluded.failures, window_start_ms = excluded.window_start_ms,
           locked_until_ms = excluded.locked_until_ms`,
        [record.key, record.failures, record.windowStartMs, record.lockedUntilMs],
      );
    },

    async clearThrottle(key) {
      await db.run(`delete from login_throttle where key = $1`, [key]);
    },

    deleteThrottleBefore: (options) =>
      db.run(
        `delete from login_throttle where key >= $1 and key < $2 and window_start_ms < $3 and (locked_until_ms is null or locked_until_ms <= $4)`,
        [options.prefix, prefixEnd(options.prefix), options.windowStartBeforeMs, options.nowMs],
      ),
  };
  return store;
}
