// The one definition of the security headers. The route wrapper
// (server/http/route.ts) applies them to every API response and proxy.ts to
// every page, so both answer with the same framing, sniffing and referrer rules.

/**
 * API answers are data, never documents: nothing may load from them and no
 * page may frame them.
 */
export const API_CONTENT_SECURITY_POLICY = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/**
 * Pages: scripts only with this response's nonce (Next.js stamps it on its
 * own inline and bundle scripts when it finds the policy in the request
 * headers); 'strict-dynamic' lets those load the chunks they import. Styles
 * keep 'unsafe-inline' because React renders `style` attributes, which a
 * nonce cannot cover. `next dev` needs eval for its overlay and refresh.
 */
export function pageContentSecurityPolicy(options: { nonce: string; dev: boolean }): string {
  const script = [`'self'`, `'nonce-${options.nonce}'`, `'strict-dynamic'`, ...(options.dev ? [`'unsafe-eval'`] : [])].join(" ");
  return [
    "default-src 'self'",
    `script-src ${script}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

/** Sets the headers every response carries; `csp` is the page or API policy. */
export function applySecurityHeaders(headers: Headers, csp: string): void {
  headers.set("Content-Security-Policy", csp);
  // For browsers that predate frame-ancestors.
  headers.set("X-Frame-Options", "DENY");
  headers.set("X-Content-Type-Options", "nosniff");
  headers.set("Referrer-Policy", "same-origin");
}

/**
 * API responses: the security headers plus `Cache-Control: no-store`, so no
 * shared cache or browser disk keeps task data, shell output or logs. A
 * handler's own directives (e.g. no-transform on the event stream) are kept
 * when they already include no-store.
 */
export function applyApiHeaders(headers: Headers): void {
  applySecurityHeaders(headers, API_CONTENT_SECURITY_POLICY);
  const cacheControl = headers.get("Cache-Control");
  if (!cacheControl || !/(^|,)\s*no-store\s*(,|$)/i.test(cacheControl)) headers.set("Cache-Control", "no-store");
}

/**
 * HSTS on responses that reached the client over HTTPS (never over plain
 * http, where browsers ignore it anyway): one year, this host only, since
 * the app cannot know whether every sibling subdomain serves HTTPS.
 */
export const STRICT_TRANSPORT_SECURITY = "max-age=31536000";

export function applyTransportSecurity(headers: Headers, secure: boolean): void {
  if (secure) headers.set("Strict-Transport-Security", STRICT_TRANSPORT_SECURITY);
}

/** A nonce for one page response: 128 random bits, base64. */
export function createNonce(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return btoa(String.fromCharCode(...bytes));
}
