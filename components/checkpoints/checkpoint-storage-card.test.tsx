// @vitest-environment jsdom
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { NextIntlClientProvider } from "next-intl";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { CheckpointStorageStatus, RetentionResult } from "@/lib/checkpoints/api";
import en from "@/messages/checkpoints/en.json";
import zhHk from "@/messages/checkpoints/zh-hk.json";
import apiErrorsEn from "@/messages/api-errors/en.json";
import apiErrorsZhHk from "@/messages/api-errors/zh-hk.json";
import { CheckpointStorageCard } from "./checkpoint-storage-card";

// The locale-aware Link needs Next's router; a plain anchor keeps the href under test.
vi.mock("@/lib/i18n/navigation", () => ({
  Link: ({ href, children, ...rest }: { href: string; children: React.ReactNode }) => (
    <a href={href} {...rest}>
      {children}
    </a>
  ),
}));

const totals = (checkpoints: number, bytes: number) => ({ checkpoints, writes: 10, checkpointBytes: bytes, writesBytes: 500 });
const result: RetentionResult = {
  version: 1,
  operationId: "op-1",
  kind: "cleanup",
  state: "succeeded",
  errorCode: null,
  startedAtMs: Date.UTC(2026, 0, 2),
  finishedAtMs: Date.UTC(2026, 0, 2, 0, 1),
  before: totals(40, 40_000),
  after: totals(31, 30_000),
  threadsScanned: 3,
  threadsChanged: 2,
  threadsSkipped: 0,
  orphanWritesAfter: 0,
  topThreads: [],
};

function status(over: Partial<CheckpointStorageStatus> = {}): CheckpointStorageStatus {
  return {
    supported: true,
    mode: "delta",
    snapshotFrequency: 10,
    tables: { checkpoints: { rows: 40, bytes: 40_000 }, writes: { rows: 10, bytes: 500 } },
    largestThreads: [{ threadId: "thread-aaa", checkpoints: 30, writes: 8, bytes: 30_000 }],
    operation: null,
    lastResult: result,
    lastResultMalformed: false,
    ...over,
  };
}

function answer(routes: Record<string, { status: number; body: unknown }>) {
  const fetchMock = vi.fn(async (url: string) => {
    const hit = routes[url] ?? { status: 404, body: { error: { code: "not_found", message: "x" } } };
    return new Response(JSON.stringify(hit.body), { status: hit.status, headers: { "content-type": "application/json" } });
  });
  vi.stubGlobal("fetch", fetchMock);
  return fetchMock;
}

function renderCard(isAdmin: boolean, locale = "en", messages: object = en) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(
    <QueryClientProvider client={client}>
      <NextIntlClientProvider locale={locale} messages={{ ...messages, ...(locale === "zh-hk" ? apiErrorsZhHk : apiErrorsEn) }} timeZone="UTC">
        <CheckpointStorageCard isAdmin={isAdmin} />
      </NextIntlClientProvider>
    </QueryClientProvider>,
  );
}

const URL = "/api/v1/system/database/checkpoints";
const t = en.checkpoints;

describe("checkpoint storage card", () => {
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it("[CRC-12] admins see mode (read-only), table usage, largest threads, before/after results, and can start an analysis", async () => {
    const fetchMock = answer({ [URL]: { status: 200, body: status() }, [`${URL}/analyze`]: { status: 202, body: { operationId: "op-2", kind: "analysis" } } });
    renderCard(true);
    expect(await screen.findByText(t.card.modeDelta)).toBeTruthy();
    expect(screen.getByText(t.card.restartRequired)).toBeTruthy();
    expect(within(screen.getByTestId("checkpoint-largest-threads")).getByText("thread-aaa")).toBeTruthy();
    // Each largest thread opens its thread view.
    expect(within(screen.getByTestId("checkpoint-largest-threads")).getByRole("link", { name: "Open thread thread-aaa" }).getAttribute("href")).toBe("/settings/data-logs/database/threads/thread-aaa");
    const resultTable = within(screen.getByTestId("checkpoint-result"));
    expect(resultTable.getByText(t.result.cleanupTitle)).toBeTruthy();
    expect(resultTable.getByText(t.result.reclaimed)).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: t.actions.analyze }));
    await vi.waitFor(() => expect(fetchMock.mock.calls.some(([u]) => u === `${URL}/analyze`)).toBe(true));
  });

  it("viewers get read-only text and no controls", async () => {
    answer({ [URL]: { status: 200, body: status() } });
    renderCard(false);
    expect(await screen.findByTestId("checkpoint-admin-only")).toBeTruthy();
    expect(screen.queryByRole("button", { name: t.actions.analyze })).toBeNull();
    expect(screen.queryByRole("button", { name: t.actions.run })).toBeNull();
  });

  it("a running operation disables both actions and says so", async () => {
    answer({ [URL]: { status: 200, body: status({ operation: { operationId: "op-3", kind: "cleanup", state: "running" } }) } });
    renderCard(true);
    expect((await screen.findByTestId("checkpoint-busy")).textContent).toBe(t.actions.busyCleanup);
    expect((screen.getByRole("button", { name: t.actions.running }) as HTMLButtonElement).disabled).toBe(true);
    expect((screen.getByRole("button", { name: t.actions.analyze }) as HTMLButtonElement).disabled).toBe(true);
  });

  it("empty storage and load errors have their own states (localized)", async () => {
    answer({ [URL]: { status: 200, body: status({ tables: { checkpoints: { rows: 0, bytes: 0 }, writes: { rows: 0, bytes: 0 } }, largestThreads: [], lastResult: null }) } });
    renderCard(true, "zh-hk", zhHk);
    expect((await screen.findByTestId("checkpoint-empty")).textContent).toBe(zhHk.checkpoints.card.empty);
    cleanup();
    answer({ [URL]: { status: 500, body: { error: { code: "internal_error", message: "x" } } } });
    renderCard(true);
    const alert = await screen.findByTestId("checkpoint-error");
    expect(alert.textContent).toContain(t.card.loadFailed);
    expect(within(alert).getByRole("button", { name: t.card.retry })).toBeTruthy();
  });
});
