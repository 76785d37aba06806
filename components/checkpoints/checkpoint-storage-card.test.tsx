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
const TABLES = { checkpoints: { rows: 40, bytes: 40_000 }, writes: { rows: 10, bytes: 500 } };
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
    cleanup: { reason: "after_cleanup", analysisId: null },
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
    const fetchMock = answer({
      [URL]: { status: 200, body: status() },
      [`${URL}/analyze`]: { status: 202, body: { operationId: "op-2", kind: "analysis" } },
      "/api/v1/threads?ids=thread-aaa": { status: 200, body: { threads: [{ threadId: "thread-aaa", found: true, title: "Release checklist" }] } },
    });
    renderCard(true);
    expect(await screen.findByText(t.card.modeDelta)).toBeTruthy();
    expect(screen.getByText(t.card.restartRequired)).toBeTruthy();
    // Each largest thread shows its title and opens its thread view.
    const largest = within(screen.getByTestId("checkpoint-largest-threads"));
    expect((await largest.findByTestId("thread-title")).textContent).toBe("Release checklist");
    expect(largest.getByRole("link", { name: "Open thread Release checklist (thread-aaa)" }).getAttribute("href")).toBe("/settings/data-logs/database/threads/thread-aaa");
    const resultTable = within(screen.getByTestId("checkpoint-result"));
    expect(resultTable.getByText(t.result.cleanupTitle)).toBeTruthy();
    expect(resultTable.getByText(t.result.reclaimed)).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: t.actions.analyze }));
    await vi.waitFor(() => expect(fetchMock.mock.calls.some(([u]) => u === `${URL}/analyze`)).toBe(true));
  });

  it("[#30] Clean up is unavailable until an analysis of the current state exists, and says why", async () => {
    for (const reason of ["no_analysis", "after_cleanup", "changed", "analysis_incomplete", "nothing_to_reclaim"] as const) {
      answer({ [URL]: { status: 200, body: status({ cleanup: { reason, analysisId: null }, lastResult: reason === "no_analysis" ? null : result }) } });
      renderCard(true);
      const button = (await screen.findByTestId("checkpoint-cleanup")) as HTMLButtonElement;
      expect(button.disabled).toBe(true);
      const why = screen.getByTestId("checkpoint-cleanup-reason");
      expect(why.textContent).toBe(t.actions.unavailable[reason]);
      expect(button.getAttribute("aria-describedby")).toBe(why.id);
      cleanup();
    }
  });

  it("[#30] Clean up on a current analysis confirms with its numbers; Cancel sends nothing, Confirm names the analysis", async () => {
    const analysis: RetentionResult = { ...result, operationId: "an-1", kind: "analysis", before: totals(40, 40_000), after: { checkpoints: 28, writes: 7, checkpointBytes: 31_000, writesBytes: 400 }, tablesAtStart: TABLES, changedDuringScan: false };
    const fetchMock = answer({
      [URL]: { status: 200, body: status({ lastResult: analysis, cleanup: { reason: "ready", analysisId: "an-1" } }) },
      [`${URL}/run`]: { status: 202, body: { operationId: "op-9", kind: "cleanup" } },
      "/api/v1/system/database/backups": { status: 200, body: { capability: "supported", keep: 10, backups: [{ name: "workspace-20260101T000000Z-abcd1234.db", sizeBytes: 1000, createdAt: "2026-01-01T00:00:00Z" }] } },
    });
    renderCard(true);
    const button = (await screen.findByTestId("checkpoint-cleanup")) as HTMLButtonElement;
    expect(button.disabled).toBe(false);
    fireEvent.click(button);
    const dialog = within(screen.getByTestId("checkpoint-confirm"));
    // 12 checkpoints and 3 writes, 9,000 + 100 bytes, from the analysis.
    expect(dialog.getByTestId("checkpoint-confirm-removed").textContent).toBe("12 checkpoints and 3 pending writes: 9.1 kB of stored payload, in 2 threads.");
    expect(await dialog.findByText(/workspace-20260101T000000Z-abcd1234\.db/)).toBeTruthy();
    expect(dialog.getByText(t.confirm.undo)).toBeTruthy();
    fireEvent.click(dialog.getByTestId("checkpoint-confirm-cancel"));
    expect(fetchMock.mock.calls.some(([u]) => u === `${URL}/run`)).toBe(false);
    fireEvent.click(button);
    fireEvent.click(within(screen.getByTestId("checkpoint-confirm")).getByTestId("checkpoint-confirm-confirm"));
    await vi.waitFor(() => expect(fetchMock.mock.calls.some(([u]) => u === `${URL}/run`)).toBe(true));
    const run = fetchMock.mock.calls.find(([u]) => u === `${URL}/run`)! as unknown as [string, RequestInit];
    expect(JSON.parse(String(run[1].body))).toEqual({ analysisId: "an-1" });
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
