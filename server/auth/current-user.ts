import { createHash } from "node:crypto";

export type { Role, SessionUser } from "./store";

export const SESSION_COOKIE = "wsr_session";
/** The name over HTTPS: the `__Host-` prefix makes browsers refuse it without Secure, Path=/ and no Domain. */
export const SECURE_SESSION_COOKIE = "__Host-wsr_session";

export function sessionCookieName(secure: boolean): string {
  return secure ? SECURE_SESSION_COOKIE : SESSION_COOKIE;
}

export function hashSessionToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/**
 * Reads the session cookie value from a Cookie header: over HTTPS only the
 * `__Host-` name counts (a plain-named cookie there may have been planted
 * by another host or over http), over http only the plain name.
 */
export function readSessionCookie(cookieHeader: string | null, secure: boolean): string | null {
  if (!cookieHeader) return null;
  const name = sessionCookieName(secure);
  for (const part of cookieHeader.split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) {
      const value = part.slice(eq + 1).trim();
      return value || null;
    }
  }
  return null;
}
