import { describe, expect, it } from "vitest";
import { COMPRESS_FROM_BYTES, jsonResponse } from "./json-response";

describe("jsonResponse", () => {
  it("[#26-1] marks an answer under 1 KiB no-transform, so the server does not gzip a 401 or a 429", async () => {
    const small = jsonResponse({ error: { code: "too_many_requests", message: "wait" } }, { status: 429 });
    expect(small.status).toBe(429);
    expect(small.headers.get("cache-control")).toBe("no-store, no-transform");
    expect(small.headers.get("content-type")).toBe("application/json");
    expect(await small.json()).toEqual({ error: { code: "too_many_requests", message: "wait" } });
  });

  it("counts bytes, not characters: 1 KiB of multi-byte text is compressed like any large answer", async () => {
    const text = "é".repeat(COMPRESS_FROM_BYTES / 2);
    const large = jsonResponse({ text }, { headers: { "Cache-Control": "no-store" } });
    expect(large.headers.get("cache-control")).toBe("no-store");
    expect((await large.json()).text).toBe(text);
    const justUnder = jsonResponse("x".repeat(COMPRESS_FROM_BYTES - 3));
    expect(justUnder.headers.get("cache-control")).toBe("no-store, no-transform");
    expect(jsonResponse("x".repeat(COMPRESS_FROM_BYTES - 2)).headers.get("cache-control")).toBeNull();
  });
});
