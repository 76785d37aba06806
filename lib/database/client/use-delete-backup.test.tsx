// @vitest-environment jsdom
import { QueryClientProvider } from "@tanstack/react-query";
import { act, cleanup, renderHook } from "@testing-library/react";
import type { ReactNode } from "react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createQueryClient } from "@/lib/query/client";
import { isApiError } from "@/lib/query/fetch-json";
import { databaseKeys } from "./keys";
import { useDeleteBackup } from "./use-delete-backup";

const NAME = "workspace-2026-11-29T22-30-00Z-1a2b3c4d.db";

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

function mount(answer: { status: number; body: unknown }) {
  const fetchMock = vi.fn<typeof fetch>(async () => new Response(JSON.stringify(answer.body), { status: answer.status, headers: { "content-type": "application/json" } }));
  vi.stubGlobal("fetch", fetchMock);
  const client = createQueryClient();
  client.setQueryData(databaseKeys.backups(), { capability: "supported", backups: [], keep: 5 });
  client.setQueryData(databaseKeys.stats(), { capability: "unsupported" });
  const wrapper = ({ children }: { children: ReactNode }) => <QueryClientProvider client={client}>{children}</QueryClientProvider>;
  return { fetchMock, client, hook: renderHook(() => useDeleteBackup(), { wrapper }) };
}

describe("useDeleteBackup", () => {
  it("deletes through the backup's URL and marks the list and the stats stale", async () => {
    const { fetchMock, client, hook } = mount({ status: 200, body: { deleted: NAME } });
    await act(() => hook.result.current.mutateAsync(NAME));
    expect(fetchMock.mock.calls[0]?.[0]).toBe(`/api/v1/system/database/backups/${NAME}`);
    expect(fetchMock.mock.calls[0]?.[1]?.method).toBe("DELETE");
    expect(client.getQueryState(databaseKeys.backups())?.isInvalidated).toBe(true);
    expect(client.getQueryState(databaseKeys.stats())?.isInvalidated).toBe(true);
  });

  it("rejects with the server's code, and still refreshes what may have changed", async () => {
    const { client, hook } = mount({ status: 503, body: { error: { code: "maintenance_busy", message: "busy" } } });
    const error = await act(() => hook.result.current.mutateAsync(NAME).catch((caught: unknown) => caught));
    expect(isApiError(error) && error.code).toBe("maintenance_busy");
    expect(client.getQueryState(databaseKeys.backups())?.isInvalidated).toBe(true);
  });
});
