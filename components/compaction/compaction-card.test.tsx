// @vitest-environment jsdom
import { act, cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { NextIntlClientProvider } from "next-intl";
import { afterEach, describe, expect, it, vi } from "vitest";
import core from "@/messages/en.json";
import feature from "@/messages/compaction/en.json";
import apiErrors from "@/messages/api-errors/en.json";
import type { CompactionOperation } from "@/lib/compaction/policy";
import { errorBody, PUT_KEY, scriptedFetch, STATUS_KEY, statusBody, withClient } from "@/lib/compaction/client/test-support";
import type { CompactionStatusBody } from "@/lib/compaction/api";
import { SaveBar } from "@/components/settings/save-bar/save-bar";
import { createSaveBarStore } from "@/components/settings/save-bar/save-bar-store";
import { SAVE_CONTRIBUTOR_ID, CompactionCard } from "./compaction-card";

const messages = { ...core, ...feature, ...apiErrors };

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

function operation(patch: Partial<CompactionOperation>): CompactionOperation {
  return {
    id: "op-1",
    kind: "analysis",
    state: "succeeded",
    startedAt: "2026-11-29T10:00:00Z",
    finishedAt: "2026-11-29T10:05:00Z",
    cutoff: "2026-08-29T10:00:00Z",
    scannedRows: 1200,
    eligibleTasks: 12,
    eligibleMessages: 340,
    changedMessages: 0,
    payloadBytes: 5_000_000,
    skipped: { recent_activity: 4, live_run: 1, brand_new_reason: 2 },
    stale: false,
    fingerprint: "months:3",
    byKind: { shell_exec: { messages: 300, payloadBytes: 4_000_000 }, read_file: { messages: 40, payloadBytes: 1_000_000 } },
    ...patch,
  };
}

async function renderCard(options: { role?: "admin" | "viewer"; status?: CompactionStatusBody; statusAnswer?: { status: number; body: unknown } }) {
  const server = scriptedFetch();
  server.answer(STATUS_KEY, options.statusAnswer ?? { status: 200, body: options.status ?? statusBody() });
  const store = createSaveBarStore();
  const { wrapper: Wrapper } = withClient();
  render(
    <NextIntlClientProvider locale="en" messages={messages} timeZone="UTC">
      <Wrapper>
        <CompactionCard isAdmin={(options.role ?? "admin") === "admin"} saveBarStore={store} />
        <SaveBar store={store} />
      </Wrapper>
    </NextIntlClientProvider>,
  );
  const card = await screen.findByTestId("retention-card");
  return { server, store, card };
}

const follows = (a: Element, b: Element) => (a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING) !== 0;

describe("Messages compaction card", () => {
  it("[TPR-UI-09] [TPR-UI-10] is titled Messages compaction, keeps the control order and shows the 24-hour check", async () => {
    const { card } = await renderCard({});
    await screen.findByRole("switch", { name: "Automatic compaction" });
    expect(within(card).getByRole("heading", { level: 3 }).textContent).toBe("Messages compaction");
    const order = [
      within(card).getByText(feature.compaction.card.description),
      within(card).getByTestId("retention-age"),
      within(card).getByRole("button", { name: "Analyze savings" }),
      within(card).getByTestId("retention-estimate"),
      within(card).getByTestId("retention-automatic"),
      within(card).getByTestId("retention-backup"),
      within(card).getByTestId("retention-run"),
    ];
    for (let i = 1; i < order.length; i++) expect(follows(order[i - 1]!, order[i]!), `control ${i}`).toBe(true);
    expect(within(card).getByTestId("retention-schedule").textContent).toMatch(/24 hours.*server is running/);
    expect(within(card).queryByRole("button", { name: /save/i })).toBeNull();
  });

  it("[TPR-AN-05] shows Not analyzed without an analysis", async () => {
    const { card } = await renderCard({});
    expect((await within(card).findByTestId("retention-not-analyzed")).textContent).toContain("Not analyzed");
  });

  it("[TPR-AN-02] [TPR-UI-11] labels the result an estimate over its scan; counts and localized skip reasons sit in details", async () => {
    const { card } = await renderCard({ status: statusBody({ latestAnalysis: operation({}) }) });
    const result = await within(card).findByTestId("retention-analysis-result");
    expect(result.textContent).toContain("Estimate");
    expect(result.textContent).toMatch(/scan that finished/);
    const details = within(result).getByTestId("retention-analysis-details");
    // It looks and reads expandable: a button with a chevron and aria-expanded.
    const toggle = within(details).getByRole("button", { name: "Scan details", expanded: false });
    expect(toggle.querySelector("svg")).toBeTruthy();
    fireEvent.click(toggle);
    expect(toggle.getAttribute("aria-expanded")).toBe("true");
    expect(details.textContent).toContain("Recent activity");
    expect(details.textContent).toContain("Agent run in progress");
    expect(details.textContent).toContain("Other reason (brand_new_reason)");
    // Seconds and how long it took; skipped counts say what they count and add up.
    expect(within(details).getByTestId("retention-analysis-details-window").textContent).toBe("Nov 29, 2026, 10:00:00 AM UTC to Nov 29, 2026, 10:05:00 AM UTC (took 5 min)");
    expect(within(details).getByTestId("retention-analysis-details-tasks").textContent).toBe("17 = 12 eligible + 5 skipped");
    expect(within(details).getByTestId("retention-analysis-details-messages").textContent).toBe("1,200 = 340 eligible + 860 skipped");
    expect(within(details).getByTestId("retention-analysis-details-task-skips").textContent).toContain("4 tasks");
    expect(within(details).getByTestId("retention-analysis-details-message-skips").textContent).toContain("2 messages");
    // Every reason says what to do about it.
    expect(details.textContent).toContain("Active within the period");
    // The outcome stays outside the details.
    const outcome = within(result).getByText(/About 5 MB/);
    expect(details.contains(outcome)).toBe(false);
    expect(within(result).getByTestId("retention-kind-chart").textContent).toContain("Shell output");
  });

  it("[TPR-AN-04] marks the estimate stale when older than 24 h or made for another age", async () => {
    const { card } = await renderCard({ status: statusBody({ latestAnalysis: operation({ stale: true }) }) });
    expect((await within(card).findByTestId("retention-analysis-result")).dataset.stale).toBe("age");
    fireEvent.change(within(card).getByLabelText("Age"), { target: { value: "5" } });
    expect(within(card).getByTestId("retention-analysis-result").dataset.stale).toBe("draft");
    expect(within(card).getByTestId("retention-analysis-result").textContent).toContain("Stale");
  });

  it("[TPR-AN-03] a partial result shows progress and never a complete-looking total", async () => {
    const partial = operation({ state: "partial", progress: { processedTasks: 40, totalTasks: null, processedMessages: 900 }, errorCode: "work_budget" });
    const { card } = await renderCard({ status: statusBody({ latestAnalysis: partial }) });
    const result = await within(card).findByTestId("retention-analysis-result");
    expect(result.textContent).toContain("Partial");
    expect(result.textContent).toContain("At least 5 MB");
    expect(result.textContent).not.toContain("About 5 MB");
    expect(within(result).getByTestId("retention-partial").textContent).toContain("40 tasks");
  });

  it("[TPR-UI-08] a pending backup reads Preparing, not Enabled, and the switch can still turn it off", async () => {
    const preparing = statusBody({
      policy: { enabled: true, age: { value: 3, unit: "months" }, revision: 2 },
      preparation: { state: "running", choice: "backup", receipt: null, errorCode: null, operationId: "p1" },
    });
    const { card } = await renderCard({ status: preparing });
    expect((await within(card).findByTestId("retention-state")).textContent).toBe("Preparing");
    expect(within(card).getByTestId("retention-preparing")).toBeTruthy();
    const toggle = within(card).getByRole("switch", { name: "Automatic compaction" });
    expect(toggle.getAttribute("aria-checked")).toBe("true");
    expect(toggle.hasAttribute("disabled")).toBe(false);
    fireEvent.click(toggle);
    expect(toggle.getAttribute("aria-checked")).toBe("false");
  });

  it("[TPR-API-05] a running preparation shows its backup progress by bytes and a cancel for its id", async () => {
    const preparing = statusBody({
      policy: { enabled: true, age: { value: 3, unit: "months" }, revision: 2 },
      preparation: { state: "running", choice: "backup", receipt: null, errorCode: null, operationId: "p1" },
      activeOperation: operation({
        id: "p1",
        kind: "preparation",
        state: "running",
        finishedAt: null,
        cutoff: null,
        scannedRows: 0,
        eligibleTasks: 0,
        eligibleMessages: 0,
        payloadBytes: 0,
        skipped: {},
        fingerprint: undefined,
        byKind: undefined,
        backupBytes: { doneBytes: 1_000_000, totalBytes: 4_000_000 },
      }),
    });
    const { card } = await renderCard({ status: preparing });
    const progress = await within(card).findByTestId("retention-progress-preparation");
    expect(progress.getAttribute("data-operation-id")).toBe("p1");
    expect(within(progress).getByRole("progressbar").getAttribute("aria-valuenow")).toBe("25");
    expect(progress.textContent).toContain("1 MB of 4 MB copied.");
    expect(within(progress).getByRole("button", { name: "Cancel" })).toBeTruthy();
  });

  it("[TPR-PREP-05] a preparation backup gone before a later pass: the card says why and asks for a new preparation", async () => {
    const gone = statusBody({
      policy: { enabled: true, age: { value: 3, unit: "months" }, revision: 2 },
      preparation: { state: "failed", choice: "backup", receipt: null, errorCode: "backup_missing", operationId: "p1" },
      lastErrorCode: "backup_missing",
    });
    const { card } = await renderCard({ status: gone });
    await within(card).findByTestId("retention-state");
    expect(card.textContent).toContain(feature.compaction.operationErrors.backup_missing);
    expect(card.textContent).not.toContain("Error code backup_missing");
  });

  it("[TPR-SCH-01] while a cleanup waits between slices, Analyze and Compact now stay available; while a slice runs they do not", async () => {
    const pass = operation({ id: "c1", kind: "cleanup", state: "running", finishedAt: null, fingerprint: undefined, byKind: undefined, revision: 1 });
    const base = { policy: { enabled: true, age: { value: 3, unit: "months" as const }, revision: 1 }, armed: true, activeOperation: pass };
    const { card } = await renderCard({ status: statusBody({ ...base, betweenSlices: true }) });
    const analyze = await within(card).findByRole("button", { name: "Analyze savings" });
    expect((analyze as HTMLButtonElement).disabled).toBe(false);
    expect(within(card).getByRole("button", { name: "Compact messages now" })).toBeTruthy();
    cleanup();
    const running = await renderCard({ status: statusBody(base) });
    expect(((await within(running.card).findByRole("button", { name: "Analyze savings" })) as HTMLButtonElement).disabled).toBe(true);
    expect(within(running.card).queryByRole("button", { name: "Compact messages now" })).toBeNull();
  });

  it("[#27] an operation whose instance stopped says it waits for a worker, until an instance holds the lease again", async () => {
    const pass = operation({ id: "c1", kind: "cleanup", state: "running", finishedAt: null, fingerprint: undefined, byKind: undefined, revision: 1 });
    const base = { policy: { enabled: true, age: { value: 3, unit: "months" as const }, revision: 1 }, armed: true, activeOperation: pass };
    const { card } = await renderCard({ status: statusBody({ ...base, waitingForWorker: true }) });
    expect((await within(card).findByTestId("retention-waiting-for-worker")).textContent).toMatch(/^Waiting for a worker/);
    cleanup();
    const running = await renderCard({ status: statusBody(base) });
    await within(running.card).findByTestId("retention-run");
    expect(within(running.card).queryByTestId("retention-waiting-for-worker")).toBeNull();
  });

  it("[TPR-UI-07] registers system:tool-payload-retention with the save bar; enabling asks for the inline backup choice, then confirms the consequence", async () => {
    const { card, store, server } = await renderCard({ status: statusBody({ latestAnalysis: operation({}) }) });
    fireEvent.click(await within(card).findByRole("switch", { name: "Automatic compaction" }));
    expect(store.getSnapshot().map((c) => c.id)).toEqual([SAVE_CONTRIBUTOR_ID]);
    const bar = await screen.findByTestId("save-bar");
    const save = within(bar).getByRole("button", { name: "Save changes" }) as HTMLButtonElement;
    expect(save.disabled).toBe(true);
    fireEvent.click(within(card).getByLabelText(/Create a backup first/));
    expect(save.disabled).toBe(false);
    server.answer(PUT_KEY, { status: 200, body: statusBody({ policy: { enabled: true, age: { value: 3, unit: "months" }, revision: 2 }, preparation: { state: "pending", choice: "backup", receipt: null, errorCode: null, operationId: "p" } }, 2) });
    server.answer(STATUS_KEY, { status: 200, body: statusBody({ policy: { enabled: true, age: { value: 3, unit: "months" }, revision: 2 }, preparation: { state: "pending", choice: "backup", receipt: null, errorCode: null, operationId: "p" } }, 2) });
    // Save opens the confirmation with the analysis's numbers; Cancel sends nothing and keeps the draft.
    await act(async () => fireEvent.click(save));
    expect((await screen.findByTestId("retention-confirm-removed")).textContent).toBe("About 5 MB of tool payloads from 340 messages in 12 tasks.");
    expect(screen.getByTestId("retention-confirm-backup").textContent).toContain("A new backup of the whole database is made and verified first");
    await act(async () => fireEvent.click(screen.getByTestId("retention-confirm-cancel")));
    expect(server.count(PUT_KEY)).toBe(0);
    expect(screen.getByTestId("save-bar")).toBeTruthy();
    await act(async () => fireEvent.click(save));
    await act(async () => fireEvent.click(await screen.findByTestId("retention-confirm-confirm")));
    await waitFor(() => expect(screen.queryByTestId("save-bar")).toBeNull());
    expect(within(card).getByTestId("retention-state").textContent).toBe("Preparing");
    // Focus goes back to the control that made the change (the radio is gone now: the switch).
    await waitFor(() => expect(document.activeElement?.id).toBe("retention-automatic-switch"));
  });

  it("[TPR-UI-07] the save bar guards navigation while changes are unsaved", async () => {
    const { card } = await renderCard({});
    fireEvent.change(await within(card).findByLabelText("Age"), { target: { value: "4" } });
    const event = new Event("beforeunload", { cancelable: true });
    window.dispatchEvent(event);
    expect(event.defaultPrevented).toBe(true);
  });

  it("[TPR-UI-06] [TPR-UI-14] a 503 status read is shown as a focused inline summary", async () => {
    const { card } = await renderCard({ statusAnswer: { status: 503, body: errorBody("maintenance_busy") } });
    const summary = await within(card).findByTestId("retention-error-status");
    expect(summary.textContent).toContain("503");
    await waitFor(() => expect(document.activeElement).toBe(summary));
  });

  it("viewers see status read-only with an explanation and no controls", async () => {
    const { card } = await renderCard({ role: "viewer", status: statusBody({ latestRun: operation({ kind: "cleanup", changedMessages: 20 }) }) });
    expect(await within(card).findByTestId("retention-read-only")).toBeTruthy();
    await within(card).findByTestId("retention-run-outcome");
    expect(within(card).queryByRole("switch")).toBeNull();
    expect(within(card).queryByRole("spinbutton")).toBeNull();
    // Refresh and the details' disclosure are the viewer's controls: they read, they never change anything.
    expect(within(card).getAllByRole("button").map((b) => b.textContent)).toEqual(["Refresh", "Scan details"]);
    expect(within(card).getByTestId("retention-automatic-readonly").textContent).toContain("Off");
  });

  it("[TPR-POL-05] a malformed record says what is wrong and offers admins Replace with defaults and Turn off", async () => {
    const malformed = statusBody({ recordState: "malformed", lastErrorCode: "settings_malformed", policy: { enabled: false, age: { value: 3, unit: "months" }, revision: 7 } });
    const { card, server } = await renderCard({ status: malformed });
    const notice = await within(card).findByTestId("retention-malformed");
    expect(within(notice).getByTestId("retention-malformed-reason").textContent).toContain("The stored settings are damaged.");
    expect(within(notice).getByRole("button", { name: "Turn off" })).toBeTruthy();
    server.answer(PUT_KEY, { status: 200, body: statusBody({ policy: { enabled: false, age: { value: 3, unit: "months" }, revision: 8 } }, 8) });
    server.answer(STATUS_KEY, { status: 200, body: statusBody({ policy: { enabled: false, age: { value: 3, unit: "months" }, revision: 8 } }, 8) });
    await act(async () => fireEvent.click(within(notice).getByRole("button", { name: "Replace with defaults" })));
    const sent = vi.mocked(fetch).mock.calls.filter(([, init]) => init?.method === "PUT");
    expect(sent.map(([, init]) => JSON.parse(String(init?.body)))).toEqual([{ policy: { enabled: false, age: { value: 3, unit: "months" } }, expectedRevision: 7 }]);
    await waitFor(() => expect(within(card).queryByTestId("retention-malformed")).toBeNull());
  });

  it("a malformed record shows viewers the reason without the actions", async () => {
    const malformed = statusBody({ recordState: "malformed", lastErrorCode: "settings_malformed" });
    const { card } = await renderCard({ role: "viewer", status: malformed });
    const notice = await within(card).findByTestId("retention-malformed");
    expect(within(notice).queryByRole("button")).toBeNull();
  });

  it("[TPR-UI-07] [TPR-PREP-02] shortening an enabled period shows the backup choice at once and keeps Save disabled", async () => {
    const enabled = statusBody({
      policy: { enabled: true, age: { value: 6, unit: "months" }, revision: 1 },
      armed: true,
      preparation: { state: "ready", choice: "skip", receipt: { skippedAt: "2026-11-01T00:00:00Z" }, errorCode: null, operationId: null },
    });
    const { card } = await renderCard({ status: enabled });
    fireEvent.change(await within(card).findByLabelText("Age"), { target: { value: "1" } });
    const choice = within(card).getByTestId("retention-backup-choice");
    // The backup's option says how long per-task restore lasts (#29); the intro no longer says a backup cannot bring back single messages.
    expect(choice.textContent).toContain(feature.compaction.backup.backupHint);
    expect(feature.compaction.backup.backupHint).toContain("one task at a time");
    const bar = await screen.findByTestId("save-bar");
    const save = within(bar).getByRole("button", { name: "Save changes" }) as HTMLButtonElement;
    expect(save.disabled).toBe(true);
    fireEvent.click(within(card).getByLabelText(/Create a backup first/));
    expect(save.disabled).toBe(false);
  });

  it("an unsupported engine shows a clear state and no actions", async () => {
    const { card } = await renderCard({ status: statusBody({ capability: "unsupported" }) });
    expect(await within(card).findByTestId("retention-unsupported")).toBeTruthy();
    expect(within(card).queryAllByRole("button").map((b) => b.textContent)).toEqual(["Refresh"]);
    expect(within(card).queryByRole("switch")).toBeNull();
  });
});
