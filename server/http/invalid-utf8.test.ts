// Invalid UTF-8 in a body is refused (400 invalid_body), never decoded into
// U+FFFD: the raw-body message routes keep metadata byte-exact, and the JSON
// routes (login included) read bodies through the same wrapper.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { PUT as putMetadata } from "@/app/api/v1/messages/[id]/metadata/route";
import { POST as postMessage } from "@/app/api/v1/sessions/[id]/messages/route";
import { POST as login } from "@/app/api/v1/auth/login/route";
import { importFixture } from "@/server/workspace/fixture/import-fixture";
import { sampleFixture } from "@/server/workspace/fixture/test-support";
import { createSqliteWorkspaceStore } from "@/server/workspace/sqlite-store";
import { AS_ADMIN, BASE_URL, setUpRouteTestEnv, type RouteTestEnv } from "./route-test-support";
import { route } from "./route";

let env: RouteTestEnv;
beforeEach(async () => {
  env = await setUpRouteTestEnv("invalid-utf8-");
  await importFixture(createSqliteWorkspaceStore(env.rt.handle), { file: "in.json", text: sampleFixture() });
});
afterEach(() => env.dispose());

/** `{"\xa9":1}`-style bodies: text with raw bytes spliced in where `\xNN` appears. */
function bytes(text: string): Uint8Array<ArrayBuffer> {
  const parts = text.split(/(\\x[0-9a-f]{2})/i);
  const joined = Buffer.concat(parts.map((part) => (/^\\x/i.test(part) ? Buffer.from([parseInt(part.slice(2), 16)]) : Buffer.from(part, "utf8"))));
  return new Uint8Array(joined);
}

function send(handler: (r: Request, c: { params: Promise<Record<string, string>> }) => Promise<Response>, options: { method: string; url: string; id?: string; body: Uint8Array<ArrayBuffer>; cookie?: string }) {
  const headers: Record<string, string> = { origin: BASE_URL, "content-type": "application/json" };
  if (options.cookie) headers.cookie = options.cookie;
  const request = new Request(`${BASE_URL}${options.url}`, { method: options.method, headers, body: options.body });
  const params: Record<string, string> = options.id ? { id: options.id } : {};
  return handler(request, { params: Promise.resolve(params) });
}

function snapshot(): unknown {
  return env.rt.handle.sqlite.prepare("select id, metadata, updated_at_ms from messages order by id").all();
}

describe("invalid UTF-8 bodies", () => {
  it('[finding 8] PUT /api/v1/messages/{id}/metadata with {"\\xa9":1} answers 400 invalid_body and changes nothing', async () => {
    const before = snapshot();
    for (const body of ['{"\\xa9":1}', '{"metadata":{"\\xa9":1}}', '{"metadata":{"k":"\\xc3\\x28"}}']) {
      const response = await send(putMetadata, { method: "PUT", url: "/api/v1/messages/m1/metadata", id: "m1", body: bytes(body), cookie: AS_ADMIN });
      expect(response.status).toBe(400);
      expect((await response.json()).error.code).toBe("invalid_body");
    }
    expect(snapshot()).toEqual(before);
  });

  it("[finding 8] POST /api/v1/sessions/{id}/messages refuses invalid UTF-8 and appends nothing", async () => {
    const before = snapshot();
    const body = bytes('{"authorType":"user","type":"message","content":"hi \\xff","metadata":{}}');
    const response = await send(postMessage, { method: "POST", url: "/api/v1/sessions/s1/messages", id: "s1", body, cookie: AS_ADMIN });
    expect(response.status).toBe(400);
    expect((await response.json()).error.code).toBe("invalid_body");
    expect(snapshot()).toEqual(before);
  });

  it("[finding 8] login refuses an invalid UTF-8 body with invalid_body before any credential check", async () => {
    const response = await send(login, { method: "POST", url: "/api/v1/auth/login", body: bytes('{"email":"admin@example.com","password":"\\xa9\\xa9\\xa9"}') });
    expect(response.status).toBe(400);
    expect((await response.json()).error.code).toBe("invalid_body");
  });

  it("still accepts valid multi-byte UTF-8 and keeps a JSON body's text exact", async () => {
    const echo = route({ access: "admin", body: z.strictObject({ s: z.string() }), handler: ({ body }) => body });
    const response = await send(echo, { method: "POST", url: "/x", body: bytes('{"s":"caf\\xc3\\xa9 \\xf0\\x9f\\x9a\\x80"}'), cookie: AS_ADMIN });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ s: "café 🚀" });
  });
});
