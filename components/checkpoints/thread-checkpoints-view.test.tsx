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
const TITLES = "/api/v1/threads?ids=thread-1";
const view: ThreadCheckpointsResponse = {
  threadId: "thread-1",
  checkpoints: 3,
  bytes: 3_000,
  reclaimableCheckpoints: 0,
  reclaimableBytes: 0,
  nextRunCheckpoints: 1,
  nextRunBytes: 1_000,
  turns: [
    {
      index: 1,
      kind: "run",
      current: true,
      bytes: 3_000,
      reclaimableBytes: 0,
      checkpoints: [
        { checkpointId: "c1", parentCheckpointId: null, kind: "input", step: -1, position: "current", bytes: 1_000, writes: 1, writesBytes: 0, verdict: { status: "protected", reasons: ["branch_ancestor", "pending_writes"] }, handle: null },
        { checkpointId: "c2", parentCheckpointId: "c1", kind: "step", step: 0, position: "current", bytes: 1_000, writes: 0, writesBytes: 0, verdict: { status: "protected", reasons: ["branch_ancestor", "run_handle"] }, handle: { runId: "r1", issuedAtMs: Date.UTC(2026, 0, 1), expiresAtMs: Date.UTC(2026, 0, 31), expired: false } },
        { checkpointId: "c3", parentCheckpointId: "c2", kind: "duration", step: 1, position: "head", bytes: 1_000, writes: 0, writesBytes: 0, verdict: { status: "reclaimable", form: "next_run" }, handle: null },
      ],
    },
  ],
};

function answer(status: number, body: unknown) {
  const fetchMock = vi.fn(async (url: string) => {
    if (url === TITLES) return new Response(JSON.stringify({ threads: [{ threadId: "thread-1", found: true, title: "Fix the flaky test" }] }), { status: 200, headers: { "content-type": "application/json" } });
    return new Response(JSON.stringify(url === URL ? body : {}), { status: url === URL ? status : 404, headers: { "content-type": "application/json" } });
  });
  vi.stubGlobal("fetch", fetchMock);
  return fetchMock;
}

/** A thread of `count` one-checkpoint turns; every third has a reclaimable branch tip. */
function longThread(count: number): ThreadCheckpointsResponse {
  const turns = Array.from({ length: count }, (_, i) => {
    const tip = i % 3 === 0;
    return {
      index: i + 1,
      kind: "run" as const,
      current: !tip,
      bytes: 100,
      reclaimableBytes: tip ? 100 : 0,
      checkpoints: [
        {
          checkpointId: `c${i}`,
          parentCheckpointId: null,
          kind: "input" as const,
          step: -1,
          position: tip ? ("abandoned_tip" as const) : ("current" as const),
          bytes: 100,
          writes: 0,
          writesBytes: 0,
          verdict: tip ? { status: "reclaimable" as const, form: "branch_tip" as const } : { status: "protected" as const, reasons: ["branch_ancestor" as const] },
          handle: null,
        },
      ],
    };
  });
  const tips = turns.filter((turn) => turn.reclaimableBytes > 0).length;
  return { threadId: "thread-1", checkpoints: count, bytes: count * 100, reclaimableCheckpoints: tips, reclaimableBytes: tips * 100, nextRunCheckpoints: 0, nextRunBytes: 0, turns };
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
    // Reclaimable is what Clean up removes; the head's duration leaf is the next run's, counted apart.
    expect(screen.getByTestId("thread-reclaimable").textContent).toBe("0 checkpoints, 0 B");
    expect(screen.getByTestId("thread-next-run").textContent).toBe("1 checkpoint, 1 kB");
    expect(summary.textContent).toContain("3 kB");
    expect((await screen.findByTestId("thread-title")).textContent).toBe("Fix the flaky test");
    const turn = screen.getByTestId("thread-turn");
    const toggle = within(turn).getByRole("button", { expanded: false });
    expect(toggle.textContent).toContain("Turn 1");
    fireEvent.click(toggle);
    expect(toggle.getAttribute("aria-expanded")).toBe("true");
    const table = within(turn).getByRole("table", { name: "Checkpoints of turn 1" });
    expect(within(table).getByText("Duration leaf")).toBeTruthy();
    expect(within(table).getByText("Newest")).toBeTruthy();
    expect(table.textContent).toContain(`Protected: ${t.reason.branch_ancestor}; ${t.reason.pending_writes}`);
    expect(within(table).getByTestId("thread-checkpoint-next-run").textContent).toContain("Kept by Clean up");
    // Which checkpoint a run handed out as its handle, and until when retention keeps it.
    expect(table.textContent).toContain(`${t.reason.branch_ancestor}; ${t.reason.run_handle}`);
    expect(within(table).getByText(/^Held until Jan 31, 2026/)).toBeTruthy();
    expect(within(table).getAllByText(t.handle.none)).toHaveLength(2);
    expect(screen.getByRole("link", { name: t.back }).getAttribute("href")).toBe("/settings/data-logs/database");
  });

  it("pages a long thread's turns and filters them to the reclaimable ones", async () => {
    answer(200, longThread(45));
    renderView();
    await screen.findByTestId("thread-summary");
    expect(screen.getAllByTestId("thread-turn")).toHaveLength(20);
    expect(screen.getByTestId("thread-page-status").textContent).toBe("Page 1 of 3 · 45 turns");
    expect((screen.getByTestId("thread-page-previous") as HTMLButtonElement).disabled).toBe(true);
    fireEvent.click(screen.getByTestId("thread-page-next"));
    fireEvent.click(screen.getByTestId("thread-page-next"));
    expect(screen.getAllByTestId("thread-turn").map((el) => el.getAttribute("data-turn"))).toEqual(["41", "42", "43", "44", "45"]);
    expect((screen.getByTestId("thread-page-next") as HTMLButtonElement).disabled).toBe(true);
    // Only the 15 turns with a branch tip, from the first page again.
    fireEvent.click(screen.getByLabelText("Turns with reclaimable checkpoints (15)"));
    const shown = screen.getAllByTestId("thread-turn");
    expect(shown).toHaveLength(15);
    expect(shown.every((el) => (Number(el.getAttribute("data-turn")) - 1) % 3 === 0)).toBe(true);
    expect(screen.queryByTestId("thread-pager")).toBeNull();
  });

  it("an unknown thread shows the empty state, not an error", async () => {
    answer(404, { error: { code: "not_found", message: "Thread thread-1 does not exist" } });
    renderView();
    expect((await screen.findByTestId("thread-not-found")).textContent).toBe(t.notFound);
    expect(screen.queryByRole("alert")).toBeNull();
  });

  it("an expired thread (410 thread_expired) says when thread expiry deleted it and its last activity, with no retry", async () => {
    answer(410, { error: { code: "thread_expired", message: "Thread thread-1 expired" }, threadId: "thread-1", expiredAt: "2026-06-02T01:00:00.000Z", lastActivityAt: "2026-01-15T09:30:00.000Z" });
    renderView("zh-tw", zhTw);
    const notice = await screen.findByTestId("thread-expired");
    expect(notice.textContent).toContain("已於 2026");
    expect(notice.textContent).toContain("被對話到期功能刪除");
    expect(notice.textContent).toContain("最後活動時間：2026");
    expect(screen.queryByRole("alert")).toBeNull();
    expect(screen.queryByTestId("thread-not-found")).toBeNull();
    expect(screen.queryByRole("button")).toBeNull();
  });

  it("a failed load is an alert with a retry, in the reader's language", async () => {
    const fetchMock = answer(500, { error: { code: "internal", message: "x" } });
    renderView("zh-tw", zhTw);
    const alert = await screen.findByRole("alert");
    expect(alert.textContent).toContain(zhTw.checkpoints.thread.loadFailed);
    expect(screen.getByTestId("thread-heading").textContent).toContain("對話 thread-1");
    answer(200, view);
    fireEvent.click(within(alert).getByRole("button", { name: zhTw.checkpoints.thread.retry }));
    expect(await screen.findByTestId("thread-summary")).toBeTruthy();
    expect(fetchMock.mock.calls.filter(([url]) => url === URL)).toHaveLength(1);
  });
});
