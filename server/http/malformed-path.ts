// A path whose percent-encoding does not decode (`/api/v1/tasks/%ZZ`,
// `/en/%C3%28`) is a client's mistake: proxy.ts answers it with the standard
// 400 body before routing, authentication or rendering see it (Next.js would
// otherwise fail to decode the route params and answer a plain-text 500).
// No "server-only" and no database code here: proxy.ts bundles this module.
import { ERROR_STATUS } from "@/lib/api/error-codes";
import { applyApiHeaders } from "@/lib/http/security-headers";
import { jsonResponse } from "./json-response";
import { processRuntime } from "@/server/runtime-slot";

export function isMalformedPath(pathname: string): boolean {
  try {
    decodeURIComponent(pathname);
    return false;
  } catch {
    return true;
  }
}

/** The standard error body, with the API headers (it is data, never a page). */
export function malformedPathResponse(): Response {
  const response = jsonResponse(
    { error: { code: "invalid_request", message: "The request path is not valid percent-encoding" } },
    { status: ERROR_STATUS.invalid_request },
  );
  applyApiHeaders(response.headers);
  return response;
}

/**
 * Logged through the process runtime's logger (so the log viewer shows it)
 * with the method, the area and the path length: never the path itself,
 * which a client chose. Rate-limited (logs/rate-limit.ts): anyone can send
 * these, and a flood must not push the ring's other lines out.
 */
export function logMalformedPath(options: { method: string; pathname: string }): void {
  const fields = {
    event: "malformed_path",
    method: options.method,
    area: options.pathname.startsWith("/api/") ? "api" : "page",
    pathLength: options.pathname.length,
  };
  const rt = processRuntime();
  if (rt) rt.floodLog.warn("malformed_path", fields, "malformed request path refused");
  else console.warn(JSON.stringify({ level: "warn", ...fields, msg: "malformed request path refused" }));
}
