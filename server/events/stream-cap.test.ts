// The attack: one signed-in session opens event streams without limit, each
// holding a connection and a bus subscription. Beyond the cap it gets a 429
// with the standard body; a stream that ends gives its slot back.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { GET as events } from "@/app/api/v1/system/events/route";
import { AS_ADMIN, AS_VIEWER, BASE_URL, setUpRouteTestEnv, type RouteTestEnv } from "@/server/http/route-test-support";
import { MAX_STREAMS_PER_SESSION } from "./stream-registry";

let env: RouteTestEnv;
const open: AbortController[] = [];
beforeEach(async () => {
  env = await setUpRouteTestEnv("stream-cap-");
});
afterEach(async () => {
  for (const controller of open.splice(0)) controller.abort();
  await env.dispose();
});

async function connect(cookie: string): Promise<{ response: Response; abort: AbortController }> {
  const abort = new AbortController();
  open.push(abort);
  const response = await events(new Request(`${BASE_URL}/api/v1/system/events`, { headers: { cookie }, signal: abort.signal }));
  return { response, abort };
}

describe("event streams per session", () => {
  it("[finding 11] answers 429 too_many_requests beyond the cap for one session", async () => {
    expect(MAX_STREAMS_PER_SESSION).toBeLessThanOrEqual(6);
    for (let i = 0; i < MAX_STREAMS_PER_SESSION; i++) {
      expect((await connect(AS_ADMIN)).response.status).toBe(200);
    }
    const refused = (await connect(AS_ADMIN)).response;
    expect(refused.status).toBe(429);
    expect(refused.headers.get("content-type")).toContain("application/json");
    expect((await refused.json()).error).toEqual({ code: "too_many_requests", message: expect.stringContaining("event streams") });
    // Another session has slots of its own.
    expect((await connect(AS_VIEWER)).response.status).toBe(200);
  });

  it("[finding 11] frees the slot when the client disconnects or cancels the body", async () => {
    const streams = [];
    for (let i = 0; i < MAX_STREAMS_PER_SESSION; i++) streams.push(await connect(AS_ADMIN));
    expect((await connect(AS_ADMIN)).response.status).toBe(429);
    streams[0]!.abort.abort();
    expect((await connect(AS_ADMIN)).response.status).toBe(200);
    await streams[1]!.response.body?.cancel();
    expect((await connect(AS_ADMIN)).response.status).toBe(200);
    expect((await connect(AS_ADMIN)).response.status).toBe(429);
  });
});
