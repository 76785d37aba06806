// Why small answers say `no-transform`: Next's server gzips every response
// whose length it does not know, and it drops a route handler's own
// Content-Length, so even a 100-byte 401 or 429 got a zlib stream set up and
// torn down; under a flood of refused sign-ins that was the larger part of
// each request's cost. Its compression skips responses marked no-transform.
// Answers of COMPRESS_FROM_BYTES or more are still compressed. API answers
// are no-store anyway (applyApiHeaders keeps a directive that includes it).
export const COMPRESS_FROM_BYTES = 1024;

/** Response.json, but an answer under COMPRESS_FROM_BYTES is sent uncompressed. */
export function jsonResponse(value: unknown, init: { status?: number; headers?: HeadersInit } = {}): Response {
  const body = JSON.stringify(value);
  const headers = new Headers(init.headers);
  headers.set("content-type", "application/json");
  if (new TextEncoder().encode(body).byteLength < COMPRESS_FROM_BYTES) headers.set("cache-control", "no-store, no-transform");
  return new Response(body, { status: init.status ?? 200, headers });
}
