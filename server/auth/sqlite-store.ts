// The SQLite implementation of the AuthStore. Statements come from the
// per-connection cache, so a store is cheap to create per request.
import type { Sqlite } from "@/server/db/client";
import type { SqliteDb } from "@/server/db/sqlite-db";
import { statement } from "@/server/db/statements";
import { prefixEnd, type AuthStore, type LiveSession, type Role, type SessionRecord, type ThrottleRecord, type UserOverview, type UserRecord } from "./store";

const userColumns = (t: string) => `${t}.id, ${t}.email, ${t}.role, ${t}.password_hash as passwordHash, ${t}.created_at as createdAt,
  ${t}.disabled_at_ms as disabledAtMs, ${t}.must_change_password as mustChangePassword`;
const SESSION_COLUMNS = `s.id, s.user_id as userId, s.created_at_ms as createdAtMs,
  coalesce(s.last_seen_at_ms, s.created_at_ms) as lastSeenAtMs, s.expires_at_ms as expiresAtMs, s.client`;
// The one liveness rule (store.ts, LiveAt): parameters @nowMs and @idleSinceMs.
const LIVE = `s.revoked_at_ms is null and s.expires_at_ms > @nowMs
  and coalesce(s.last_seen_at_ms, s.created_at_ms) > @idleSinceMs and u.disabled_at_ms is null`;

type UserRow = Omit<UserRecord, "mustChangePassword"> & { mustChangePassword: number };

function toUser(row: UserRow): UserRecord {
  return { ...row, mustChangePassword: row.mustChangePassword === 1 };
}

type Verb = Exclude<keyof AuthStore, "writeTransaction">;
/** Each verb run synchronously on one connection (its statements in one step). */
type SyncVerbs = { [K in Verb]: (...args: Parameters<AuthStore[K]>) => Awaited<ReturnType<AuthStore[K]>> };

const READS = [
  "countUsers",
  "countEnabledAdmins",
  "findUserByEmail",
  "findUserById",
  "listUsers",
  "sessionForToken",
  "listSessions",
  "liveSessionsAmong",
  "readThrottle",
] as const satisfies readonly Verb[];
const WRITES = [
  "insertUser",
  "updateUser",
  "insertSession",
  "revokeSession",
  "revokeSessionById",
  "revokeUserSessions",
  "pruneSessions",
  "touchSession",
  "saveThrottle",
  "clearThrottle",
  "deleteThrottleBefore",
] as const satisfies readonly Verb[];
// Every verb is a read or a write: a new verb that is neither does not compile.
type Unassigned = Exclude<Verb, (typeof READS)[number] | (typeof WRITES)[number]>;
const everyVerbAssigned: [Unassigned] extends [never] ? true : Unassigned = true;
void everyVerbAssigned;

/**
 * The AuthStore on a SQLite database: reads run on the connection
 * `reading()` names (the read connection, or the writer inside a
 * transaction), writes through the writer queue.
 */
export function createSqliteAuthStore(db: SqliteDb): AuthStore {
  const perConnection = new WeakMap<Sqlite, SyncVerbs>();
  const on = (sqlite: Sqlite): SyncVerbs => {
    let verbs = perConnection.get(sqlite);
    if (!verbs) {
      verbs = verbsOn(sqlite);
      perConnection.set(sqlite, verbs);
    }
    return verbs;
  };
  const call = (sqlite: Sqlite, verb: Verb, args: unknown[]) => (on(sqlite)[verb] as (...a: unknown[]) => unknown)(...args);
  const store = { writeTransaction: (fn: (tx: AuthStore) => unknown) => db.transaction(() => fn(store)) } as AuthStore;
  const verbs = store as unknown as Record<Verb, (...args: unknown[]) => Promise<unknown>>;
  for (const verb of READS) verbs[verb] = async (...args) => call(db.reading(), verb, args);
  for (const verb of WRITES) verbs[verb] = (...args) => db.write((writer) => call(writer, verb, args));
  return store;
}

function verbsOn(sqlite: Sqlite): SyncVerbs {
  const store: SyncVerbs = {
    countUsers: () => (statement(sqlite, `select count(*) as n from users`).get() as { n: number }).n,

    countEnabledAdmins: () =>
      (statement(sqlite, `select count(*) as n from users where role = 'admin' and disabled_at_ms is null`).get() as { n: number }).n,

    insertUser(user) {
      try {
        statement(sqlite, `insert into users (id, email, role, password_hash, created_at, must_change_password) values (?, ?, ?, ?, ?, ?)`).run(
          user.id,
          user.email,
          user.role,
          user.passwordHash,
          user.createdAt,
          user.mustChangePassword ? 1 : 0,
        );
        return "inserted";
      } catch (error) {
        if ((error as { code?: string }).code === "SQLITE_CONSTRAINT_UNIQUE") return "email_taken";
        throw error;
      }
    },

    findUserByEmail(email) {
      const row = statement(sqlite, `select ${userColumns("u")} from users u where u.email = ?`).get(email) as UserRow | undefined;
      return row ? toUser(row) : null;
    },

    findUserById(id) {
      const row = statement(sqlite, `select ${userColumns("u")} from users u where u.id = ?`).get(id) as UserRow | undefined;
      return row ? toUser(row) : null;
    },

    listUsers(at) {
      const rows = statement(
        sqlite,
        `select ${userColumns("u")},
           (select count(*) from auth_sessions s where s.user_id = u.id and ${LIVE}) as liveSessions,
           (select max(coalesce(s.last_seen_at_ms, s.created_at_ms)) from auth_sessions s where s.user_id = u.id) as lastSeenAtMs
         from users u order by u.email`,
      ).all(at) as (UserRow & { liveSessions: number; lastSeenAtMs: number | null })[];
      return rows.map((row): UserOverview => ({ ...toUser(row), liveSessions: row.liveSessions, lastSeenAtMs: row.lastSeenAtMs }));
    },

    updateUser(change) {
      const sets: string[] = [];
      const values: Record<string, unknown> = { id: change.id };
      const set = (column: string, name: string, value: unknown) => {
        sets.push(`${column} = @${name}`);
        values[name] = value;
      };
      if (change.role !== undefined) set("role", "role", change.role);
      if (change.disabledAtMs !== undefined) set("disabled_at_ms", "disabledAtMs", change.disabledAtMs);
      if (change.passwordHash !== undefined) set("password_hash", "passwordHash", change.passwordHash);
      if (change.mustChangePassword !== undefined) set("must_change_password", "mustChange", change.mustChangePassword ? 1 : 0);
      if (sets.length === 0) return store.findUserById(change.id) !== null;
      // At most 15 shapes of this statement, each cached once per connection.
      return statement(sqlite, `update users set ${sets.join(", ")} where id = @id`).run(values).changes > 0;
    },

    insertSession(session) {
      statement(
        sqlite,
        `insert into auth_sessions (token_hash, id, user_id, created_at_ms, expires_at_ms, last_seen_at_ms, client)
         values (@tokenHash, @id, @userId, @createdAtMs, @expiresAtMs, @createdAtMs, @client)`,
      ).run(session);
    },

    revokeSession: (session) =>
      statement(sqlite, `update auth_sessions set revoked_at_ms = ? where token_hash = ? and revoked_at_ms is null`).run(
        session.nowMs,
        session.tokenHash,
      ).changes > 0,

    revokeSessionById: (session) =>
      statement(sqlite, `update auth_sessions set revoked_at_ms = ? where id = ? and user_id = ? and revoked_at_ms is null`).run(
        session.nowMs,
        session.id,
        session.userId,
      ).changes > 0,

    revokeUserSessions: (options) =>
      statement(
        sqlite,
        `update auth_sessions set revoked_at_ms = @nowMs
         where user_id = @userId and revoked_at_ms is null and (@exceptId is null or id is not @exceptId)`,
      ).run({ userId: options.userId, nowMs: options.nowMs, exceptId: options.exceptId ?? null }).changes,

    pruneSessions: (at) =>
      statement(
        sqlite,
        `delete from auth_sessions where revoked_at_ms is not null or expires_at_ms <= @nowMs
           or coalesce(last_seen_at_ms, created_at_ms) <= @idleSinceMs`,
      ).run(at).changes,

    sessionForToken(session) {
      const row = statement(
        sqlite,
        `select ${SESSION_COLUMNS}, u.email, u.role, u.must_change_password as mustChangePassword
         from auth_sessions s join users u on u.id = s.user_id
         where s.token_hash = @tokenHash and ${LIVE}`,
      ).get(session) as (SessionRecord & { email: string; role: Role; mustChangePassword: number }) | undefined;
      if (!row) return null;
      const { email, role, mustChangePassword, ...record } = row;
      const live: LiveSession = { ...record, user: { id: record.userId, email, role, mustChangePassword: mustChangePassword === 1 } };
      return live;
    },

    touchSession(session) {
      statement(sqlite, `update auth_sessions set last_seen_at_ms = ? where id = ? and revoked_at_ms is null`).run(session.nowMs, session.id);
    },

    listSessions: (options) =>
      statement(
        sqlite,
        `select ${SESSION_COLUMNS} from auth_sessions s join users u on u.id = s.user_id
         where s.user_id = @userId and ${LIVE} order by s.created_at_ms desc, s.id`,
      ).all(options) as SessionRecord[],

    liveSessionsAmong(options) {
      if (options.ids.length === 0) return [];
      return statement(
        sqlite,
        `select s.id, u.role from auth_sessions s join users u on u.id = s.user_id
         where s.id in (select value from json_each(@ids)) and ${LIVE}`,
      ).all({ ids: JSON.stringify(options.ids), nowMs: options.nowMs, idleSinceMs: options.idleSinceMs }) as { id: string; role: Role }[];
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

    deleteThrottleBefore: (options) =>
      statement(
        sqlite,
        `delete from login_throttle where key >= ? and key < ? and window_start_ms < ? and (locked_until_ms is null or locked_until_ms <= ?)`,
      ).run(options.prefix, prefixEnd(options.prefix), options.windowStartBeforeMs, options.nowMs).changes,
  };
  return store;
}
