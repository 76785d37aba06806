// Test harness for route handlers: a runtime of the test's own on a fresh
// temp SQLite database, installed as the process runtime (Next's handlers
// take it from there), one admin and one viewer with live sessions, and a
// Request builder. Handlers are called directly, as Next calls them.
import { hashSessionToken } from "@/server/auth/current-user";
import { createTestRuntime, installUnsupportedRuntime, type TestRuntime, type TestRuntimeOptions } from "@/server/runtime-test-support";

export const BASE_URL = "http://localhost:3000";
export const AS_ADMIN = "wsr_session=admin-token";
export const AS_VIEWER = "wsr_session=viewer-token";
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
export function setUpRouteTestEnv(prefix = "routes-", options: Omit<TestRuntimeOptions, "prefix" | "install"> = {}): RouteTestEnv {
  const rt = createTestRuntime({ start: true, ...options, prefix, install: true });
  const sqlite = rt.handle.sqlite;
  const user = sqlite.prepare("insert into users (id, email, role, password_hash, created_at) values (?, ?, ?, 'x', '2026-01-01T00:00:00Z')");
  const session = sqlite.prepare("insert into auth_sessions (token_hash, user_id, created_at_ms, expires_at_ms) values (?, ?, 0, 9e15)");
  user.run("u-admin", "admin@example.com", "admin");
  user.run("u-viewer", "viewer@example.com", "viewer");
  session.run(hashSessionToken("admin-token"), "u-admin");
  session.run(hashSessionToken("viewer-token"), "u-viewer");
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
