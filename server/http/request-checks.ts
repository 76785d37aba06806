import "server-only";
// The header checks a mutation passes before its body is read. Each is a
// constant number of linear scans over headers Node caps at 16 KiB.
//
// Cross-site requests are refused three ways, any one of which suffices in
// a current browser:
// - Origin, when present, must be this server's origin;
// - Sec-Fetch-Site, when present, must say same-origin (or none: the user
//   typed it); same-site is refused too, since a sibling subdomain is
//   another party;
// - a body must be declared application/json: an HTML form can only send
//   urlencoded, multipart or text/plain, and a cross-origin fetch with JSON
//   needs a CORS preflight this server never grants.
// A request with neither Origin nor Sec-Fetch-Site comes from a client that
// is not a browser (curl, a script): there is no victim's browser to abuse,
// so it passes on to the session check like any other client.
import { isTrustedAddress, normalizeAddress, type TrustedProxies } from "./client-address";
import { PEER_ADDRESS_HEADER } from "./peer-address";

export type RequestRefusal = "cross_origin" | "unsupported_media_type";

/**
 * True when the client reached this server over HTTPS: the request URL, or
 * X-Forwarded-Proto when the TCP peer is a trusted proxy (TRUSTED_PROXIES).
 * A header from anyone else is ignored, as X-Forwarded-For is.
 */
export function isSecureRequest(request: Request, options: { trusted: TrustedProxies; stamped: boolean }): boolean {
  if (new URL(request.url).protocol === "https:") return true;
  const forwarded = request.headers.get("x-forwarded-proto");
  if (!forwarded || !options.stamped) return false;
  const peer = request.headers.get(PEER_ADDRESS_HEADER) ?? "";
  if (!peerIsTrusted(peer, options.trusted)) return false;
  // The proxy nearest to us appended last.
  const hops = forwarded.split(",");
  return hops[hops.length - 1]!.trim().toLowerCase() === "https";
}

function peerIsTrusted(peer: string, trusted: TrustedProxies): boolean {
  const address = normalizeAddress(peer);
  return address !== null && isTrustedAddress(address, trusted);
}

/** This server's origin as the browser sees it: the scheme it was reached over and the Host it asked for. */
function expectedOrigins(request: Request, secure: boolean): Set<string> {
  const url = new URL(request.url);
  const origins = new Set<string>([url.origin]);
  const host = request.headers.get("host");
  if (host) origins.add(`${secure ? "https" : "http"}://${host.toLowerCase()}`);
  return origins;
}

/** `application/json`, with parameters (charset) allowed; nothing else. */
export function isJsonContentType(value: string | null): boolean {
  if (value === null) return false;
  const semi = value.indexOf(";");
  const type = (semi < 0 ? value : value.slice(0, semi)).trim().toLowerCase();
  return type === "application/json";
}

/**
 * True when the request declares a body. On HTTP/1.1 a body is framed by
 * Content-Length or Transfer-Encoding, so the headers are the whole answer
 * (Next hands every DELETE or POST a body stream, empty or not).
 */
function hasBody(request: Request): boolean {
  const length = request.headers.get("content-length");
  if (length !== null) return length.trim() !== "0";
  return request.headers.get("transfer-encoding") !== null;
}

/** Why a mutation is refused before its session is used, or null. */
export function refuseMutation(request: Request, options: { secure: boolean }): RequestRefusal | null {
  const site = request.headers.get("sec-fetch-site");
  if (site !== null && site !== "same-origin" && site !== "none") return "cross_origin";
  const origin = request.headers.get("origin");
  if (origin !== null && !expectedOrigins(request, options.secure).has(origin.toLowerCase())) return "cross_origin";
  const type = request.headers.get("content-type");
  // A form's empty POST still names its type; a bodiless fetch names none.
  if (type !== null ? !isJsonContentType(type) : hasBody(request)) return "unsupported_media_type";
  return null;
}
