import "server-only";
import { sessionCookieName } from "./current-user";

// Over HTTPS the cookie is `__Host-wsr_session`: browsers accept that name
// only with Secure, Path=/ and no Domain, so neither a sibling subdomain nor
// a plain-http response can plant or overwrite it (cookie tossing). Over
// plain http (loopback, the demo) it is `wsr_session`. Whether a request is
// secure is decided by isSecureRequest (server/http/request-checks.ts).
function serialize(value: string, maxAgeSeconds: number, secure: boolean): string {
  const parts = [`${sessionCookieName(secure)}=${value}`, "Path=/", "HttpOnly", "SameSite=Lax", `Max-Age=${maxAgeSeconds}`];
  if (secure) parts.push("Secure");
  return parts.join("; ");
}

export function sessionCookie(options: { token: string; maxAgeMs: number; secure: boolean }): string {
  return serialize(options.token, Math.max(0, Math.floor(options.maxAgeMs / 1000)), options.secure);
}

export function clearedSessionCookie(options: { secure: boolean }): string {
  return serialize("", 0, options.secure);
}
