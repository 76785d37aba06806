import "server-only";
import { SESSION_COOKIE } from "./current-user";

/** True when the client reached us over https (directly or through a proxy that says so). */
export function isSecureRequest(request: Request): boolean {
  const forwarded = request.headers.get("x-forwarded-proto")?.split(",")[0]?.trim();
  if (forwarded) return forwarded === "https";
  return new URL(request.url).protocol === "https:";
}

function serialize(value: string, maxAgeSeconds: number, secure: boolean): string {
  const parts = [`${SESSION_COOKIE}=${value}`, "Path=/", "HttpOnly", "SameSite=Lax", `Max-Age=${maxAgeSeconds}`];
  if (secure) parts.push("Secure");
  return parts.join("; ");
}

export function sessionCookie(options: { token: string; maxAgeMs: number; secure: boolean }): string {
  return serialize(options.token, Math.max(0, Math.floor(options.maxAgeMs / 1000)), options.secure);
}

export function clearedSessionCookie(options: { secure: boolean }): string {
  return serialize("", 0, options.secure);
}
