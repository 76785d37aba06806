// Test harness for route handlers: a fresh temp SQLite database behind the
// process runtime, one admin and one viewer with live sessions, and a
// Request builder. Handlers are called directly, as Next calls them.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { hashSessionToken } from "@/server/auth/current-user";
import { closeRuntime, runtime } from "@/server/runtime";

export const BASE_URL = "http://localhost:3000";
export const AS_ADMIN = "wsr_session=admin-token";
export const AS_VIEWER = "wsr_session=viewer-token";
export type Who = typeof AS_ADMIN | typeof AS_VIEWER | null;

export type RouteTestEnv = { dir: string; dispose(): void };

/** Points DATABASE_URL at a new temp file and signs in an admin and a viewer. */
export function setUpRouteTestEnv(prefix = "routes-"): RouteTestEnv {
  closeRuntime();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  process.env.DATABASE_URL = `file:${path.join(dir, "workspace.db")}`;
  const sqlite = runtime().handle!.sqlite;
  const user = sqlite.prepare("insert into users (id, email, role, password_hash, created_at) values (?, ?, ?, 'x', '2026-01-01T00:00:00Z')");
  const session = sqlite.prepare("insert into auth_sessions (token_hash, user_id, created_at_ms, expires_at_ms) values (?, ?, 0, 9e15)");
  user.run("u-admin", "admin@example.com", "admin");
  user.run("u-viewer", "viewer@example.com", "viewer");
  session.run(hashSessionToken("admin-token"), "u-admin");
  session.run(hashSessionToken("viewer-token"), "u-viewer");
  return {
    dir,
    dispose() {
      closeRuntime();
      fs.rmSync(dir, { recursive: true, force: true });
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

export function testSqlite() {
  return runtime().handle!.sqlite;
}
