import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { fetchParsed, isApiError } from "./fetch-json";

const schema = z.object({ operationId: z.string() });

function answer(status: number, body: unknown) {
  const fetchMock = vi.fn<typeof fetch>(async () => new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } }));
  vi.stubGlobal("fetch", fetchMock);
  return fetchMock;
}

afterEach(() => vi.unstubAllGlobals());

describe("fetchParsed", () => {
  it("returns the answer checked against the schema and passes the abort signal on", async () => {
    const fetchMock = answer(202, { operationId: "op-1" });
    const controller = new AbortController();
    await expect(fetchParsed(schema, "/api/v1/x", { method: "POST", body: {}, signal: controller.signal })).resolves.toEqual({ operationId: "op-1" });
    expect(fetchMock.mock.calls[0]?.[1]?.signal).toBe(controller.signal);
  });

  it("rejects an answer of the wrong shape with ApiError unknown_error", async () => {
    answer(200, { operation: "op-1" });
    const error = await fetchParsed(schema, "/api/v1/x").catch((caught: unknown) => caught);
    expect(isApiError(error) && error.code).toBe("unknown_error");
  });

  it("keeps the server's code on a non-2xx answer", async () => {
    answer(503, { error: { code: "maintenance_busy", message: "busy" } });
    const error = await fetchParsed(schema, "/api/v1/x").catch((caught: unknown) => caught);
    expect(isApiError(error) && [error.status, error.code]).toEqual([503, "maintenance_busy"]);
  });
});
