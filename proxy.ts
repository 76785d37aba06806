import createMiddleware from "next-intl/middleware";
import { NextRequest, NextResponse } from "next/server";
import { routing } from "@/lib/i18n/routing";
import { applySecurityHeaders, createNonce, pageContentSecurityPolicy } from "@/lib/http/security-headers";
import { isMalformedPath, logMalformedPath, malformedPathResponse } from "@/server/http/malformed-path";

const localize = createMiddleware(routing);

/**
 * Runs before routing for every path but Next's own static files:
 * 1. a path that does not percent-decode answers 400 (pages and API alike);
 * 2. API paths go on untouched (the route wrapper sets their headers);
 * 3. pages get a per-response script nonce: the policy travels in the
 *    request headers, where Next.js finds it and stamps the nonce on its
 *    scripts, and in the response with the other security headers; then
 *    locale negotiation (prefix, Accept-Language, NEXT_LOCALE cookie).
 */
export default function proxy(request: NextRequest): Response {
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
  const response = /\.[^/]*$/.test(pathname)
    ? NextResponse.next({ request: { headers } })
    : localize(new NextRequest(request, { headers }));
  applySecurityHeaders(response.headers, csp);
  return response;
}

export const config = {
  matcher: ["/((?!_next/static|_next/image).*)"],
};
