import createMiddleware from "next-intl/middleware";
import { NextRequest, NextResponse } from "next/server";
import { routing } from "@/lib/i18n/routing";
import { ERROR_STATUS } from "@/lib/api/error-codes";
import { applyApiHeaders, applySecurityHeaders, applyTransportSecurity, createNonce, pageContentSecurityPolicy } from "@/lib/http/security-headers";
import { isAllowedHost, processAllowedHosts } from "@/server/http/allowed-hosts";
import { jsonResponse } from "@/server/http/json-response";
import { isMalformedPath, logMalformedPath, malformedPathResponse } from "@/server/http/malformed-path";
import { hasFileExtension } from "@/server/http/path-shape";
import { processRuntime } from "@/server/runtime-slot";

const localize = createMiddleware(routing);

function hostNotAllowedResponse(): Response {
  const response = jsonResponse(
    { error: { code: "host_not_allowed", message: "This server does not answer for that host name" } },
    { status: ERROR_STATUS.host_not_allowed },
  );
  applyApiHeaders(response.headers);
  return response;
}

/**
 * Runs before routing for every path but Next's own static files. Every
 * step is linear in the path and headers (an anonymous client chooses them):
 * 1. a Host outside ALLOWED_HOSTS answers 421 (DNS rebinding), pages and API alike;
 * 2. a path that does not percent-decode answers 400;
 * 3. API paths go on untouched (the route wrapper checks the session first
 *    and sets their headers);
 * 4. pages get a per-response script nonce: the policy travels in the
 *    request headers, where Next.js finds it and stamps the nonce on its
 *    scripts, and in the response with the other security headers; then
 *    locale negotiation (prefix, Accept-Language, NEXT_LOCALE cookie).
 */
export default function proxy(request: NextRequest): Response {
  if (!isAllowedHost(request.headers.get("host"), processRuntime()?.signIn.allowedHosts ?? processAllowedHosts())) {
    return hostNotAllowedResponse();
  }
  const { pathname } = request.nextUrl;
  if (isMalformedPath(pathname)) {
    logMalformedPath({ method: request.method, pathname });
    return malformedPathResponse();
  }
  if (pathname === "/api" || pathname.startsWith("/api/")) return NextResponse.next();
  const csp = pageContentSecurityPolicy({ nonce: createNonce(), dev: process.env.NODE_ENV !== "production" });
  const headers = new Headers(request.headers);
  headers.set("Content-Security-Policy", csp);
  // Files with an extension are not localized pages.
  const response = hasFileExtension(pathname)
    ? NextResponse.next({ request: { headers } })
    : localize(new NextRequest(request, { headers }));
  applySecurityHeaders(response.headers, csp);
  applyTransportSecurity(response.headers, processRuntime()?.signIn.isSecure(request) ?? false);
  return response;
}

export const config = {
  matcher: ["/((?!_next/static|_next/image).*)"],
};
