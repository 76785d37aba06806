import "server-only";
import { randomBytes } from "node:crypto";
import type { Sqlite } from "@/server/db/client";
import { hashSessionToken } from "./current-user";

export const SESSION_TTL_MS = 7 * 24 * 60 * 60 * 1000;

export type NewSession = { token: string; expiresAtMs: number };

/** Starts a session; only the SHA-256 of the token is stored, so a database leak yields no usable cookie. */
export function createSession(sqlite: Sqlite, options: { userId: string; nowMs: number; ttlMs?: number }): NewSession {
  const token = randomBytes(32).toString("base64url");
  const expiresAtMs = options.nowMs + (options.ttlMs ?? SESSION_TTL_MS);
  sqlite
    .prepare(`insert into auth_sessions (token_hash, user_id, created_at_ms, expires_at_ms) values (?, ?, ?, ?)`)
    .run(hashSessionToken(token), options.userId, options.nowMs, expiresAtMs);
  return { token, expiresAtMs };
}

/** Revokes one session; a later request with the same cookie is anonymous. */
export function revokeSession(sqlite: Sqlite, options: { token: string; nowMs: number }): boolean {
  const result = sqlite
    .prepare(`update auth_sessions set revoked_at_ms = ? where token_hash = ? and revoked_at_ms is null`)
    .run(options.nowMs, hashSessionToken(options.token));
  return result.changes > 0;
}

/** Drops sessions that can no longer be used (keeps the table small). */
export function pruneSessions(sqlite: Sqlite, options: { nowMs: number }): number {
  return sqlite
    .prepare(`delete from auth_sessions where expires_at_ms <= ? or revoked_at_ms is not null`)
    .run(options.nowMs).changes;
}
