// @vitest-environment jsdom
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { NextIntlClientProvider } from "next-intl";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import apiErrorsEn from "@/messages/api-errors/en.json";
import storageHistoryEn from "@/messages/storage-history/en.json";
import type { HistoryResponse, StorageSample } from "@/lib/database/history-api";
import { fitGrowth } from "@/lib/database/forecast";
import { formatBytes } from "@/lib/i18n/format";
import { StorageHistory } from "./storage-history";
import { defaultTargetGb, parseGigabytes } from "./history-forecast";
import { tableRows } from "./history-table";

const t = storageHistoryEn.storageHistory;
const DAY = 86_400_000;
const NOW = Date.UTC(2026, 5, 30, 0, 5);

function sample(id: number, day: number, used: number, trigger: StorageSample["trigger"] = "daily", reclaimed: number | null = null): StorageSample {
  const atMs = NOW - day * DAY;
  return {
    id,
    at: new Date(atMs).toISOString(),
    atMs,
    trigger,
    operationId: trigger === "daily" ? null : `op-${id}`,
    method: "dbstat",
    totalBytes: used + 1_000_000,
    usedBytes: used,
    freeBytes: 1_000_000,
    areas: { messages: used * 0.6, checkpoints: used * 0.3, other: used * 0.1 },
    reclaimedBytes: reclaimed,
    diskFreeBytes: 40_000_000_000,
  };
}

/** 40 days growing 50 MB a day, with a compaction 10 days ago that gave back 800 MB. */
function history(): Extract<HistoryResponse, { capability: "supported" }> {
  const samples: StorageSample[] = [];
  let id = 1;
  for (let day = 40; day >= 0; day--) {
    const drop = day < 10 ? 800_000_000 : 0;
    samples.push(sample(id++, day, 2_000_000_000 + (40 - day) * 50_000_000 - drop));
    if (day === 10) samples.push(sample(id++, 9.9, 2_000_000_000 + 30 * 50_000_000 - 800_000_000, "compaction", 800_000_000));
  }
  const latest = { ...samples[samples.length - 1]!, tables: [{ name: "messages", area: "messages" as const, rows: 10, bytes: 1 }] };
  return { capability: "supported", engine: "sqlite", retentionDays: 400, days: 120, samples, latest, malformedSamples: 0, growth: fitGrowth(samples) };
}

function serve(answer: { status: number; body: unknown }) {
  const calls: string[] = [];
  vi.stubGlobal(
    "fetch",
    vi.fn(async (url: string) => {
      calls.push(url);
      return new Response(JSON.stringify(answer.body), { status: answer.status, headers: { "content-type": "application/json" } });
    }),
  );
  return calls;
}

function mount() {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(
    <QueryClientProvider client={client}>
      <NextIntlClientProvider locale="en" messages={{ ...storageHistoryEn, ...apiErrorsEn }} timeZone="UTC">
        <StorageHistory />
      </NextIntlClientProvider>
    </QueryClientProvider>,
  );
}

beforeEach(() => window.localStorage.clear());
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe("storage history section", () => {
  it("draws the chart with its marker, lists the operation with what it gave back, and opens the data table", async () => {
    const calls = serve({ status: 200, body: history() });
    mount();
    const chart = await screen.findByTestId("history-chart");
    expect(calls[0]).toBe("/api/v1/system/database/history?days=120");
    expect(within(chart).getByRole("img").getAttribute("aria-label")).toContain(`last 120 days: ${formatBytes(2_000_000_000, "en")} in use on`);
    expect(within(chart).getByRole("img").getAttribute("aria-label")).toContain("; 1 maintenance operation.");
    expect(chart.querySelectorAll("[data-testid=history-marker][data-trigger=compaction]")).toHaveLength(1);
    expect(screen.getByTestId("history-event").textContent).toContain(`gave back ${formatBytes(800_000_000, "en")}`);
    const toggle = screen.getByTestId("history-table-toggle");
    expect(toggle.getAttribute("aria-expanded")).toBe("false");
    expect(screen.queryByTestId("history-table")).toBeNull();
    fireEvent.click(toggle);
    expect(toggle.getAttribute("aria-expanded")).toBe("true");
    const rows = screen.getAllByTestId("history-row");
    expect(rows).toHaveLength(42);
    // Newest first; the compaction row shows what it gave back and the drop in use.
    expect(rows[0]!.textContent).toContain(t.triggers.daily);
    const compaction = rows.find((row) => row.textContent?.includes(t.triggers.compaction))!;
    expect(compaction.textContent).toContain(formatBytes(800_000_000, "en"));
    expect(compaction.textContent).toMatch(/\u2212\d/);
    // Range buttons ask for other days.
    fireEvent.click(screen.getByTestId("history-range-30"));
    expect(screen.getByTestId("history-range-30").getAttribute("aria-pressed")).toBe("true");
    await vi.waitFor(() => expect(calls).toContain("/api/v1/system/database/history?days=30"));
  });

  it("[#30] labels the size axis in the one decimal unit system: round steps read round (1 GB, not 954 MB)", async () => {
    serve({ status: 200, body: history() });
    mount();
    const chart = await screen.findByTestId("history-chart");
    const labels = Array.from(chart.querySelectorAll("[data-testid=history-y-tick]"), (tick) => tick.textContent);
    // Up to 3.5 GB in use: steps of 10^9 bytes, which binary units would label 0.9, 1.9, 2.8 and 3.7 GB.
    expect(labels).toEqual(["0 B", "1 GB", "2 GB", "3 GB", "4 GB"]);
    expect(labels.slice(1)).toEqual([1e9, 2e9, 3e9, 4e9].map((bytes) => formatBytes(bytes, "en")));
  });

  it("forecasts the size typed, remembers it, and says what is wrong with a bad one", async () => {
    serve({ status: 200, body: history() });
    mount();
    const target = await screen.findByTestId("forecast-target");
    // Default: the disk's size (the file plus the free space of its file system).
    expect((target as HTMLInputElement).value).toBe(defaultTargetGb(history().latest!));
    const result = screen.getByTestId("forecast-result");
    expect(result.textContent).toContain(`In use grows by ${formatBytes(50_000_000, "en")} a day`);
    fireEvent.change(target, { target: { value: "4" } });
    expect(result.getAttribute("data-state")).toBe("reaches");
    expect(result.textContent).toContain(`reaches ${formatBytes(4e9, "en")} around `);
    expect(result.textContent).toContain("95 % range: ");
    expect(window.localStorage.getItem("storage-history.forecast-gb")).toBe("4");
    fireEvent.change(target, { target: { value: "1,5" } });
    expect(result.getAttribute("data-state")).toBe("reached");
    fireEvent.change(target, { target: { value: "-2" } });
    expect(result.getAttribute("data-state")).toBe("invalid");
    expect(target.getAttribute("aria-invalid")).toBe("true");
    expect(result.textContent).toContain(t.forecast.invalidTarget);
    fireEvent.click(screen.getByTestId("forecast-use-disk"));
    expect(result.getAttribute("data-state")).not.toBe("invalid");
  });

  it("says there is no history yet, and shows a failed load with its code", async () => {
    serve({ status: 200, body: { ...history(), samples: [], latest: null, growth: { state: "insufficient_data", samples: 0, windowDays: 30 } } });
    mount();
    expect((await screen.findByTestId("history-empty")).textContent).toBe(t.empty);
    expect(screen.queryByTestId("history-forecast")).toBeNull();
    cleanup();
    vi.unstubAllGlobals();
    serve({ status: 400, body: { error: { code: "invalid_request", message: "days: too big" } } });
    mount();
    expect((await screen.findByTestId("history-error")).textContent).toContain("400 · invalid_request");
  });

  it("names stored samples it could not read", async () => {
    serve({ status: 200, body: { ...history(), malformedSamples: 2 } });
    mount();
    expect((await screen.findByTestId("history-malformed")).textContent).toBe("2 stored samples could not be read and are left out.");
  });
});

describe("forecast input and table rows", () => {
  it("reads sizes with a point or a comma, nothing else", () => {
    expect(["12", "12.5", "12,5", " 3 ", "0.001"].map(parseGigabytes)).toEqual([12, 12.5, 12.5, 3, 0.001]);
    expect(["", "0", "-1", "1e3", "abc", "1.2.3", "12 GB"].map(parseGigabytes)).toEqual([null, null, null, null, null, null, null]);
  });

  it("defaults to the disk's size, else a round size above twice today's", () => {
    const base = sample(1, 0, 3_000_000_000);
    expect(defaultTargetGb(base)).toBe("43");
    expect(defaultTargetGb({ ...base, diskFreeBytes: null })).toBe("10");
  });

  it("lists rows newest first with the change in use since the sample before", () => {
    const rows = tableRows([sample(1, 2, 100), sample(2, 1, 150), sample(3, 0, 120)]);
    expect(rows.map((row) => [row.sample.id, row.change])).toEqual([[3, -30], [2, 50], [1, null]]);
  });
});
