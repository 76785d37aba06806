import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { AS_ADMIN, BASE_URL, setUpRouteTestEnv, type RouteTestEnv } from "./route-test-support";
import { MAX_BODY_BYTES, route } from "./route";

let env: RouteTestEnv;
beforeEach(async () => {
  env = await setUpRouteTestEnv("route-");
});
afterEach(() => env.dispose());

const echo = route({ access: "admin", body: z.strictObject({ pad: z.string() }), handler: ({ body }) => ({ length: body.pad.length }) });

function streamed(bytes: number, chunk = 64 * 1024): ReadableStream<Uint8Array> {
  let sent = 0;
  const prefix = new TextEncoder().encode('{"pad":"');
  return new ReadableStream({
    pull(controller) {
      if (sent === 0) controller.enqueue(prefix);
      if (sent >= bytes) return controller.close();
      const size = Math.min(chunk, bytes - sent);
      sent += size;
      controller.enqueue(new Uint8Array(size).fill(0x78));
    },
  });
}

describe("route body limit", () => {
  it("[TPR-API-08] cuts off a chunked body without Content-Length at the limit with a 400", async () => {
    let pulled = 0;
    const body = streamed(8 * MAX_BODY_BYTES);
    const counting = body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          pulled += chunk.byteLength;
          controller.enqueue(chunk);
        },
      }),
    );
    const request = new Request(`${BASE_URL}/x`, {
      method: "POST",
      headers: { cookie: AS_ADMIN, origin: BASE_URL, "content-type": "application/json" },
      body: counting,
      duplex: "half",
    } as RequestInit);
    const response = await echo(request);
    expect(response.status).toBe(400);
    expect((await response.json()).error.code).toBe("invalid_request");
    // Reading stopped near the limit instead of buffering all 8 MiB.
    expect(pulled).toBeLessThan(MAX_BODY_BYTES + 256 * 1024);
  });

  it("accepts a body under the limit", async () => {
    const request = new Request(`${BASE_URL}/x`, {
      method: "POST",
      headers: { cookie: AS_ADMIN, origin: BASE_URL, "content-type": "application/json" },
      body: JSON.stringify({ pad: "abc" }),
    });
    const response = await echo(request);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ length: 3 });
  });
});
