// Walks every API route handler (each app/api/**/route.ts export, through
// the route wrapper as Next calls it) as an anonymous client, a viewer and an
// admin, and checks the security headers on whatever it answers: success,
// 4xx or a stream. A page that frames the API, or a cache that keeps
// authenticated JSON, is the attack.
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AS_ADMIN, AS_VIEWER, BASE_URL, setUpRouteTestEnv, type RouteTestEnv, type Who } from "./route-test-support";

type Handler = (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response>;
const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
const API_DIR = path.join(process.cwd(), "app", "api");

function routeFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return routeFiles(full);
    return entry.name === "route.ts" ? [full] : [];
  });
}

/** `/api/v1/tasks/[id]` -> the URL path and the params Next would pass. */
function routeTarget(file: string): { url: string; params: Record<string, string> } {
  const params: Record<string, string> = {};
  const segments = path
    .relative(path.join(process.cwd(), "app"), path.dirname(file))
    .split(path.sep)
    .map((segment) => {
      const dynamic = /^\[(.+)\]$/.exec(segment);
      if (!dynamic?.[1]) return segment;
      params[dynamic[1]] = "missing";
      return "missing";
    });
  return { url: `/${segments.join("/")}`, params };
}

function expectSecurityHeaders(response: Response, label: string): void {
  const headers = response.headers;
  expect(headers.get("content-security-policy"), label).toContain("frame-ancestors 'none'");
  expect(headers.get("x-content-type-options"), label).toBe("nosniff");
  expect(headers.get("referrer-policy"), label).toBe("same-origin");
  expect(headers.get("cache-control") ?? "", label).toMatch(/(^|,)\s*no-store\s*(,|$)/);
}

let env: RouteTestEnv;
beforeAll(async () => {
  env = await setUpRouteTestEnv("security-headers-");
});
afterAll(() => env.dispose());

describe("security headers on every API route", () => {
  const files = routeFiles(API_DIR).sort();

  it("finds the route handlers to walk", () => {
    expect(files.length).toBeGreaterThanOrEqual(25);
  });

  it("[finding 6 + 10] every handler answers with CSP frame-ancestors 'none', nosniff, same-origin referrer and no-store", async () => {
    let walked = 0;
    for (const file of files) {
      const mod = (await import(file)) as Partial<Record<(typeof METHODS)[number], Handler>>;
      const { url, params } = routeTarget(file);
      for (const method of METHODS) {
        const handler = mod[method];
        if (!handler) continue;
        // Reads as everyone; mutations only where they are refused or harmless
        // (anonymous, viewer), so the walk changes nothing an admin would.
        const callers: Who[] = method === "GET" ? [null, AS_VIEWER, AS_ADMIN] : [null, AS_VIEWER];
        for (const who of callers) {
          const abort = new AbortController();
          const headers: Record<string, string> = { origin: BASE_URL, "content-type": "application/json" };
          if (who) headers.cookie = who;
          const request = new Request(`${BASE_URL}${url}`, {
            method,
            headers,
            body: method === "GET" ? undefined : "{}",
            signal: abort.signal,
          });
          const response = await handler(request, { params: Promise.resolve(params) });
          expectSecurityHeaders(response, `${method} ${url} as ${who ?? "anonymous"} -> ${response.status}`);
          abort.abort();
          await response.body?.cancel().catch(() => {});
          walked += 1;
        }
      }
    }
    expect(walked).toBeGreaterThanOrEqual(60);
  });
});
