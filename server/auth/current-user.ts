import { createHash } from "node:crypto";
import type { AuthStore, SessionUser } from "./store";

export type { Role, SessionUser } from "./store";

export const SESSION_COOKIE = "wsr_session";

export function hashSessionToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/** Reads the session cookie value from a Cookie header. */
export function readSessionCookie(cookieHeader: string | null): string | null {
  if (!cookieHeader) return null;
  for (const part of cookieHeader.split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === SESSION_COOKIE) {
      const value = part.slice(eq + 1).trim();
      return value || null;
    }
  }
  return null;
}

/** The signed-in user for a session token, or null (unknown, expired or revoked). */
export function userForToken(store: AuthStore, token: string | null, nowMs: number): SessionUser | null {
  if (!token) return null;
  return store.userForSession({ tokenHash: hashSessionToken(token), nowMs });
}
