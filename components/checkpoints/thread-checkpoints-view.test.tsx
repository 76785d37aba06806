// @vitest-environment jsdom
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { NextIntlClientProvider } from "next-intl";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { ThreadCheckpointsResponse } from "@/lib/checkpoints/api";
import en from "@/messages/checkpoints/en.json";
import zhTw from "@/messages/checkpoints/zh-tw.json";
import apiErrorsEn from "@/messages/api-errors/en.json";
import apiErrorsZhTw from "@/messages/api-errors/zh-tw.json";
import { ThreadCheckpointsView } from "./thread-checkpoints-view";

vi.mock("@/lib/i18n/navigation", () => ({
  Link: ({ href, children, ...rest }: { href: string; children: React.ReactNode }) => (
    <a href={href} {...rest}>
      {children}
    </a>
  ),
}));

const URL = "/api/v1/threads/thread-1/checkpoints";
const view: ThreadCheckpointsResponse = {
  threadId: "thread-1",
  checkpoints: 3,
  bytes: 3_000,
  reclaimableCheckpoints: 1,
  reclaimableBytes: 1_000,
  turns: [
    {
      index: 1,
      kind: "run",
      current: true,
      bytes: 3_000,
      reclaimableBytes: 1_000,
      checkpoints: [
        { checkpointId: "c1", parentCheckpointId: null, kind: "input", step: -1, position: "current", bytes: 1_000, writes: 1, writesBytes: 0, verdict: { status: "protected", reasons: ["branch_ancestor", "pending_writes"] } },
        { checkpointId: "c2", parentCheckpointId: "c1", kind: "step", step: 0, position: "current", bytes: 1_000, writes: 0, writesBytes: 0, verdict: { status: "protected", reasons: ["branch_ancestor"] } },
        { checkpointId: "c3", parentCheckpointId: "c2", kind: "duration", step: 1, position: "head", bytes: 1_000, writes: 0, writesBytes: 0, verdict: { status: "reclaimable", form: "next_run" } },
      ],
    },
  ],
};

function answer(status: number, body: unknown) {
  const fetchMock = vi.fn(async (url: string) => new Response(JSON.stringify(url === URL ? body : {}), { status: url === URL ? status : 404, headers: { "content-type": "application/json" } }));
  vi.stubGlobal("fetch", fetchMock);
  return fetchMock;
}

function renderView(locale = "en", messages: object = en) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(
    <QueryClientProvider client={client}>
      <NextIntlClientProvider locale={locale} messages={{ ...messages, ...(locale === "zh-tw" ? apiErrorsZhTw : apiErrorsEn) }} timeZone="UTC">
        <ThreadCheckpointsView threadId="thread-1" />
      </NextIntlClientProvider>
    </QueryClientProvider>,
  );
}

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const t = en.checkpoints.thread;

describe("thread checkpoints view", () => {
  it("shows a loading status, then the summary and each turn's checkpoints with kind, position and verdict", async () => {
    answer(200, view);
    renderView();
    expect(screen.getByRole("status", { name: t.loading })).toBeTruthy();
    const summary = await screen.findByTestId("thread-summary");
    expect(summary.textContent).toContain("1 checkpoint");
    const turn = screen.getByTestId("thread-turn");
    fireEvent.click(within(turn).getByText("Turn 1"));
    const table = within(turn).getByRole("region", { name: "Checkpoints of turn 1" });
    expect(within(table).getByText("Duration leaf")).toBeTruthy();
    expect(within(table).getByText("Newest")).toBeTruthy();
    expect(table.textContent).toContain(`Protected: ${t.reason.branch_ancestor}; ${t.reason.pending_writes}`);
    expect(table.textContent).toContain(`Reclaimable: ${t.form.next_run}`);
    expect(screen.getByRole("link", { name: t.back }).getAttribute("href")).toBe("/settings/data-logs/database");
  });

  it("an unknown thread shows the empty state, not an error", async () => {
    answer(404, { error: { code: "not_found", message: "Thread thread-1 does not exist" } });
    renderView();
    expect((await screen.findByTestId("thread-not-found")).textContent).toBe(t.notFound);
    expect(screen.queryByRole("alert")).toBeNull();
  });

  it("a failed load is an alert with a retry, in the reader's language", async () => {
    const fetchMock = answer(500, { error: { code: "internal", message: "x" } });
    renderView("zh-tw", zhTw);
    const alert = await screen.findByRole("alert");
    expect(alert.textContent).toContain(zhTw.checkpoints.thread.loadFailed);
    expect(screen.getByText("thread-1").parentElement!.textContent).toBe("對話：thread-1");
    answer(200, view);
    fireEvent.click(within(alert).getByRole("button", { name: zhTw.checkpoints.thread.retry }));
    expect(await screen.findByTestId("thread-summary")).toBeTruthy();
    expect(fetchMock).toHaveBeenCalledTimes(1);
  });
});
