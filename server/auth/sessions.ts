import "server-only";
import { randomBytes } from "node:crypto";
import { hashSessionToken } from "./current-user";
import type { AuthStore } from "./store";

export const SESSION_TTL_MS = 7 * 24 * 60 * 60 * 1000;

export type NewSession = { token: string; expiresAtMs: number };

/** Starts a session; only the SHA-256 of the token is stored, so a database leak yields no usable cookie. */
export function createSession(store: AuthStore, options: { userId: string; nowMs: number; ttlMs?: number }): NewSession {
  const token = randomBytes(32).toString("base64url");
  const expiresAtMs = options.nowMs + (options.ttlMs ?? SESSION_TTL_MS);
  store.insertSession({ tokenHash: hashSessionToken(token), userId: options.userId, createdAtMs: options.nowMs, expiresAtMs });
  return { token, expiresAtMs };
}

/** Revokes one session; a later request with the same cookie is anonymous. */
export function revokeSession(store: AuthStore, options: { token: string; nowMs: number }): boolean {
  return store.revokeSession({ tokenHash: hashSessionToken(options.token), nowMs: options.nowMs });
}

/** Drops sessions that can no longer be used (keeps the table small). */
export function pruneSessions(store: AuthStore, options: { nowMs: number }): number {
  return store.pruneSessions(options);
}
