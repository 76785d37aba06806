import "server-only";
import { randomBytes } from "node:crypto";
import { hashSessionToken } from "./current-user";
import { SESSION_TTL_MS, liveAt, touchDue, type SessionPolicy } from "./session-policy";
import type { AuthStore, LiveSession } from "./store";

export { SESSION_TTL_MS };

export type NewSession = { token: string; id: string; expiresAtMs: number };

/**
 * Starts a session; only the SHA-256 of the token is stored, so a database
 * leak yields no usable cookie. `id` is a separate random value: the one
 * admins see and end the session by.
 */
export async function createSession(
  store: AuthStore,
  options: { userId: string; nowMs: number; ttlMs?: number; client?: string | null },
): Promise<NewSession> {
  const token = randomBytes(32).toString("base64url");
  const id = randomBytes(16).toString("hex");
  const expiresAtMs = options.nowMs + (options.ttlMs ?? SESSION_TTL_MS);
  await store.insertSession({ tokenHash: hashSessionToken(token), id, userId: options.userId, createdAtMs: options.nowMs, expiresAtMs, client: options.client ?? null });
  return { token, id, expiresAtMs };
}

/**
 * The live session of a cookie token (unexpired, unrevoked, not idle, its
 * user enabled), or null. With `touch`, a request counts as activity: the
 * idle timeout starts again (written at most once a minute).
 */
export async function resolveSession(
  store: AuthStore,
  options: { token: string | null; policy: SessionPolicy; nowMs: number; touch: boolean },
): Promise<LiveSession | null> {
  if (!options.token) return null;
  const session = await store.sessionForToken({ tokenHash: hashSessionToken(options.token), ...liveAt(options.policy, options.nowMs) });
  if (session && options.touch && touchDue(options.policy, session.lastSeenAtMs, options.nowMs)) {
    await store.touchSession({ id: session.id, nowMs: options.nowMs });
    return { ...session, lastSeenAtMs: options.nowMs };
  }
  return session;
}

/** Revokes one session; a later request with the same cookie is anonymous. */
export async function revokeSession(store: AuthStore, options: { token: string; nowMs: number }): Promise<boolean> {
  return await store.revokeSession({ tokenHash: hashSessionToken(options.token), nowMs: options.nowMs });
}

/** Drops sessions that can no longer be used: expired, idle past the timeout, revoked (keeps the table small). */
export async function pruneSessions(store: AuthStore, options: { policy: SessionPolicy; nowMs: number }): Promise<number> {
  return await store.pruneSessions(liveAt(options.policy, options.nowMs));
}
