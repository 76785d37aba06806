// #26 item 5 over every API route, not a sample: an anonymous request whose
// other checks would all fail too (a foreign Origin, a cross-site fetch, a
// body that is not JSON) answers 401 on every handler but sign-in and
// metrics, on a working engine of either kind and while PostgreSQL was
// unreachable at start. A route that read or validated anything first would
// answer 400, 403, 415, 501 or its data instead.
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { TEST_POSTGRES_URL } from "@/server/db/pg/test-db";
import { BASE_URL, setUpEngineRouteTestEnv, type EngineRouteTestEnv } from "./route-test-support";

type Handler = (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response>;
const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
const APP_DIR = path.join(process.cwd(), "app");
// Sign-in needs no session; metrics has its own bearer token; the catch-all
// answers 404 for paths no route serves, with no data behind it.
const OPEN = new Set(["/api/v1/auth/login", "/api/v1/metrics", "/api/[...path]"]);

function routeFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return routeFiles(full);
    return entry.name === "route.ts" ? [full] : [];
  });
}

/** `app/api/v1/tasks/[id]/route.ts` -> its pattern, the URL to call and the params Next would pass. */
function routeTarget(file: string): { pattern: string; url: string; params: Record<string, string> } {
  const params: Record<string, string> = {};
  const segments = path.relative(APP_DIR, path.dirname(file)).split(path.sep);
  const url = segments
    .map((segment) => {
      const dynamic = /^\[(.+)\]$/.exec(segment);
      if (!dynamic?.[1]) return segment;
      params[dynamic[1]] = "u-admin";
      return "u-admin";
    })
    .join("/");
  return { pattern: `/${segments.join("/")}`, url: `/${url}`, params };
}

async function unreachablePostgres(): Promise<string> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `postgres://user:secret@127.0.0.1:${port}/db`;
}

/** Calls every guarded handler anonymously with hostile headers; returns "METHOD pattern -> status code" for each. */
async function walkAnonymously(): Promise<string[]> {
  const answers: string[] = [];
  for (const file of routeFiles(path.join(APP_DIR, "api")).sort()) {
    const { pattern, url, params } = routeTarget(file);
    if (OPEN.has(pattern)) continue;
    const mod = (await import(file)) as Partial<Record<(typeof METHODS)[number], Handler>>;
    for (const method of METHODS) {
      const handler = mod[method];
      if (!handler) continue;
      const abort = new AbortController();
      const request = new Request(`${BASE_URL}${url}?limit=x&limit=y`, {
        method,
        headers: { origin: "https://evil.example", "sec-fetch-site": "cross-site", "content-type": "text/plain" },
        body: method === "GET" ? undefined : "not json",
        signal: abort.signal,
      });
      const response = await handler(request, { params: Promise.resolve(params) });
      const code = response.headers.get("content-type")?.includes("application/json") ? ((await response.clone().json()) as { error?: { code?: string } }).error?.code : undefined;
      answers.push(`${method} ${pattern} -> ${response.status} ${code ?? "(no error body)"}`);
      abort.abort();
      await response.body?.cancel().catch(() => {});
    }
  }
  return answers;
}

for (const { engine, skip } of [
  { engine: "sqlite" as const, skip: false },
  { engine: "postgres" as const, skip: !TEST_POSTGRES_URL },
]) {
  describe.skipIf(skip)(`the session check comes first on every route [${engine}]`, () => {
    let env: EngineRouteTestEnv;
    beforeEach(async () => {
      env = await setUpEngineRouteTestEnv(engine, "session-first-");
    });
    afterEach(async () => env.dispose());

    it("[#26-5] every API handler but sign-in and metrics answers an anonymous, cross-site, non-JSON request 401 unauthenticated", async () => {
      const answers = await walkAnonymously();
      expect(answers.length).toBeGreaterThanOrEqual(50);
      expect(answers.filter((a) => !a.endsWith("-> 401 unauthenticated"))).toEqual([]);
    });
  });
}

describe("the session check comes first on every route [unsupported engine]", () => {
  let env: EngineRouteTestEnv;
  beforeEach(async () => {
    env = await setUpEngineRouteTestEnv("sqlite", "session-first-unsupported-");
  });
  afterEach(async () => env.dispose());

  it("[#26-5] the same walk while PostgreSQL was unreachable at start answers 401 on every handler too", async () => {
    env.useUnsupportedEngine(await unreachablePostgres());
    const answers = await walkAnonymously();
    expect(answers.length).toBeGreaterThanOrEqual(50);
    expect(answers.filter((a) => !a.endsWith("-> 401 unauthenticated"))).toEqual([]);
  });
});
