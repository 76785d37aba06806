// Test harness for route handlers: a runtime of the test's own on a fresh
// temp SQLite database, installed as the process runtime (Next's handlers
// take it from there), one admin and one viewer with live sessions, and a
// Request builder. Handlers are called directly, as Next calls them.
import { hashSessionToken } from "@/server/auth/current-user";
import {
  createEngineTestRuntime,
  createTestRuntime,
  installUnsupportedRuntime,
  type EngineTestRuntime,
  type TestRuntime,
  type TestRuntimeOptions,
} from "@/server/runtime-test-support";
import type { OpenRuntime } from "@/server/runtime";

export const BASE_URL = "http://localhost:3000";
export const AS_ADMIN = "wsr_session=admin-token";
export const AS_VIEWER = "wsr_session=viewer-token";
/** The public ids of those two sessions. */
export const ADMIN_SESSION_ID = "a".repeat(32);
export const VIEWER_SESSION_ID = "b".repeat(32);
export type Who = typeof AS_ADMIN | typeof AS_VIEWER | null;


export type RouteTestEnv = {
  dir: string;
  rt: TestRuntime;
  /** Serves the following requests with DATABASE_URL = url (an unsupported engine). */
  useUnsupportedEngine(url: string): void;
  dispose(): Promise<void>;
};

/**
 * A started runtime (its worker runs, as after boot) with an admin and a
 * viewer signed in. `options` reach createTestRuntime (clock, log, worker seams).
 */
export async function setUpRouteTestEnv(prefix = "routes-", options: Omit<TestRuntimeOptions, "prefix" | "install"> = {}): Promise<RouteTestEnv> {
  const rt = createTestRuntime({ start: true, ...options, prefix, install: true });
  await signInTestUsers(rt);
  let restore: (() => void) | null = null;
  return {
    dir: rt.dir,
    rt,
    useUnsupportedEngine(url) {
      restore ??= installUnsupportedRuntime(url, rt);
    },
    async dispose() {
      restore?.();
      await rt.dispose();
    },
  };
}

export function apiRequest(
  method: string,
  url: string,
  who: Who,
  body?: unknown,
  headers: Record<string, string> = {},
): Request {
  const h: Record<string, string> = { origin: BASE_URL, ...headers };
  if (who) h.cookie = who;
  if (body !== undefined) h["content-type"] = "application/json";
  const payload = body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body);
  return new Request(`${BASE_URL}${url}`, { method, headers: h, body: payload });
}

/** An admin and a viewer with live sessions (AS_ADMIN, AS_VIEWER), through the auth store (any engine). */
async function signInTestUsers(rt: OpenRuntime): Promise<void> {
  const auth = rt.stores.auth;
  for (const [id, role, token] of [
    ["u-admin", "admin", "admin-token"],
    ["u-viewer", "viewer", "viewer-token"],
  ] as const) {
    await auth.insertUser({ id, email: `${role}@example.com`, role, passwordHash: "x", createdAt: "2026-01-01T00:00:00Z" });
    await auth.insertSession({ tokenHash: hashSessionToken(token), id: role === "admin" ? ADMIN_SESSION_ID : VIEWER_SESSION_ID, userId: id, createdAtMs: 0, expiresAtMs: 9e15, client: null });
  }
}

/** Raw SQL for assertions and hand-made rows, written once for both engines (`?` placeholders). */
export type EngineSql = {
  all<T = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<T[]>;
  run(sql: string, params?: readonly unknown[]): Promise<void>;
  /** Several statements without parameters. */
  exec(sql: string): Promise<void>;
};

export function engineSql(rt: OpenRuntime): EngineSql {
  if (rt.handle) {
    const sqlite = rt.handle.sqlite;
    return {
      all: async <T>(sql: string, params: readonly unknown[] = []) => sqlite.prepare(sql).all(...params) as T[],
      run: async (sql, params = []) => void sqlite.prepare(sql).run(...params),
      exec: async (sql) => void sqlite.exec(sql),
    };
  }
  const db = rt.postgres!;
  const numbered = (sql: string) => {
    let n = 0;
    return sql.replace(/\?/g, () => `$${++n}`);
  };
  return {
    all: <T>(sql: string, params: readonly unknown[] = []) => db.query<T>(numbered(sql), params),
    run: async (sql, params = []) => void (await db.run(numbered(sql), params)),
    exec: (sql) => db.exec(sql),
  };
}

export type EngineRouteTestEnv = {
  dir: string;
  rt: EngineTestRuntime;
  sql: EngineSql;
  /** Serves the following requests with DATABASE_URL = url (an engine whose database cannot be opened). */
  useUnsupportedEngine(url: string): void;
  dispose(): Promise<void>;
};

/** setUpRouteTestEnv on either engine (PostgreSQL: a fresh database of TEST_POSTGRES_URL's server). */
export async function setUpEngineRouteTestEnv(
  engine: "sqlite" | "postgres",
  prefix = "routes-",
  options: Omit<TestRuntimeOptions, "prefix" | "install"> = {},
): Promise<EngineRouteTestEnv> {
  const rt = await createEngineTestRuntime(engine, { start: true, ...options, prefix, install: true });
  await signInTestUsers(rt);
  let restore: (() => void) | null = null;
  return {
    dir: rt.dir,
    rt,
    sql: engineSql(rt),
    useUnsupportedEngine(url) {
      restore ??= installUnsupportedRuntime(url, rt);
    },
    async dispose() {
      restore?.();
      await rt.dispose();
    },
  };
}
