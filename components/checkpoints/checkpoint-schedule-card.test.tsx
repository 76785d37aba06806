// @vitest-environment jsdom
// The scheduled maintenance card against stubbed API answers: the viewer's
// read-only view, the cleanup switch saving at once, and thread expiry's
// order (analysis, switch, backup choice, consequence confirmation, save).
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { NextIntlClientProvider } from "next-intl";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { CleanupScheduleStatus, ExpiryStatus, MaintenanceOperation } from "@/lib/checkpoints/maintenance-api";
import en from "@/messages/checkpoints/en.json";
import zhCn from "@/messages/checkpoints/zh-cn.json";
import compactionZhCn from "@/messages/compaction/zh-cn.json";
import windowZhCn from "@/messages/maintenance-window/zh-cn.json";
import apiErrorsZhCn from "@/messages/api-errors/zh-cn.json";
import compactionEn from "@/messages/compaction/en.json";
import windowEn from "@/messages/maintenance-window/en.json";
import apiErrorsEn from "@/messages/api-errors/en.json";
import { CheckpointScheduleCard } from "./checkpoint-schedule-card";

const cleanupStatus: CleanupScheduleStatus = {
  capability: "supported",
  recordState: "ok",
  policy: { enabled: false, revision: 0 },
  nextDueAt: null,
  activeOperation: null,
  latestRun: null,
  lastErrorCode: null,
  maintenanceWindow: null,
};

const analysis: MaintenanceOperation = {
  id: "op-a",
  kind: "expiry_analysis",
  trigger: "manual",
  state: "succeeded",
  startedAt: "2026-06-01T12:00:00.000Z",
  finishedAt: "2026-06-01T12:00:01.000Z",
  cutoff: "2026-03-03T12:00:00.000Z",
  age: { value: 90, unit: "days" },
  revision: null,
  threadsScanned: 5,
  threads: 3,
  checkpoints: 120,
  writes: 7,
  bytes: 2_097_152,
  skipped: { recent_activity: 2 },
  errorCode: null,
};

function expiryStatus(over: Partial<ExpiryStatus> = {}): ExpiryStatus {
  return {
    capability: "supported",
    recordState: "ok",
    policy: { enabled: false, age: { value: 90, unit: "days" }, revision: 0 },
    preparation: { state: "none", choice: null, receipt: null, errorCode: null, operationId: null, backupBytes: null },
    armed: false,
    latestAnalysis: analysis,
    latestRun: null,
    activeOperation: null,
    nextDueAt: null,
    lastErrorCode: null,
    maintenanceWindow: null,
    expiredThreads: 0,
    ...over,
  };
}

type Call = { url: string; method: string; body: unknown };

function serve(expiry: ExpiryStatus) {
  const calls: Call[] = [];
  let cleanupNow = cleanupStatus;
  vi.stubGlobal(
    "fetch",
    vi.fn(async (url: string, init?: RequestInit) => {
      const method = init?.method ?? "GET";
      const body = init?.body ? JSON.parse(String(init.body)) : null;
      calls.push({ url, method, body });
      const reply = (value: unknown) => new Response(JSON.stringify(value), { status: 200, headers: { "content-type": "application/json" } });
      if (url.endsWith("/schedule") && method === "PUT") cleanupNow = { ...cleanupStatus, policy: { enabled: body.policy.enabled, revision: 1 }, nextDueAt: "2026-06-02T01:00:00.000Z" };
      if (url.endsWith("/schedule")) return reply(cleanupNow);
      if (url.endsWith("/thread-expiry") && method === "PUT") return reply(expiryStatus({ policy: { ...body.policy, revision: 1 }, armed: body.preparation === "skip" }));
      return reply(expiry);
    }),
  );
  return calls;
}

function renderCard(isAdmin: boolean, locale: "en" | "zh-cn" = "en") {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const messages = locale === "en" ? { ...en, ...compactionEn, ...windowEn, ...apiErrorsEn } : { ...zhCn, ...compactionZhCn, ...windowZhCn, ...apiErrorsZhCn };
  render(
    <QueryClientProvider client={client}>
      <NextIntlClientProvider locale={locale} messages={messages} timeZone="UTC">
        <CheckpointScheduleCard isAdmin={isAdmin} />
      </NextIntlClientProvider>
    </QueryClientProvider>,
  );
}

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe("CheckpointScheduleCard", () => {
  it("shows members both policies read-only, with no controls", async () => {
    serve(expiryStatus());
    renderCard(false);
    expect((await screen.findByTestId("expiry-readonly")).textContent).toContain("90 days");
    expect(screen.getByTestId("checkpoint-cleanup-readonly").textContent).toContain("Off");
    expect(screen.getByTestId("checkpoint-schedule-read-only")).toBeTruthy();
    expect(screen.queryAllByRole("switch")).toHaveLength(0);
    expect(screen.queryByRole("button", { name: "Analyze" })).toBeNull();
  });

  it("the cleanup switch saves at once with the revision it read", async () => {
    const calls = serve(expiryStatus());
    renderCard(true);
    fireEvent.click(await screen.findByRole("switch", { name: "Clean up daily" }));
    await waitFor(() => expect(calls.find((c) => c.method === "PUT" && c.url.endsWith("/schedule"))?.body).toEqual({ policy: { enabled: true }, expectedRevision: 0 }));
    expect((await screen.findByTestId("checkpoint-cleanup-next")).textContent).toContain("Next run");
  });

  it("a second press while the cleanup switch saves is ignored, and the switch keeps keyboard focus", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const calls = serve(expiryStatus());
    const served = globalThis.fetch;
    vi.stubGlobal(
      "fetch",
      vi.fn(async (url: string, init?: RequestInit) => {
        if (init?.method === "PUT") await gate;
        return served(url, init);
      }),
    );
    renderCard(true);
    const toggle = await screen.findByRole("switch", { name: "Clean up daily" });
    toggle.focus();
    fireEvent.click(toggle);
    await waitFor(() => expect(toggle.getAttribute("aria-busy")).toBe("true"));
    fireEvent.click(toggle);
    expect((toggle as HTMLButtonElement).disabled).toBe(false);
    expect(document.activeElement).toBe(toggle);
    release();
    await waitFor(() => expect(toggle.getAttribute("aria-checked")).toBe("true"));
    expect(calls.filter((c) => c.method === "PUT")).toHaveLength(1);
  });

  it("an operation line takes its punctuation from the catalog (full-width in Chinese)", async () => {
    const stopped: MaintenanceOperation = { ...analysis, id: "op-c", kind: "checkpoint_cleanup", trigger: "scheduled", state: "partial", threads: 2, checkpoints: 5, bytes: 2048, skipped: {}, errorCode: "maintenance_window_closed" };
    serve(expiryStatus({ latestRun: { ...stopped, kind: "thread_expiry" } }));
    renderCard(false, "zh-cn");
    const line = await screen.findByTestId("expiry-latest");
    expect(line.textContent).toMatch(/^已于 .+（.+）提前停止：已删除 2 个会话、5 个检查点，共 2(\.0)? kB；原因：维护时段已结束，由每日计划执行$/);
    expect(line.textContent).not.toMatch(/: |\(|\)/);
  });

  it("enabling expiry asks for the backup choice, then states what it deletes before saving", async () => {
    const calls = serve(expiryStatus());
    renderCard(true);
    expect((await screen.findByTestId("expiry-analysis")).textContent).toContain("3 threads would be deleted: 120 checkpoints, 7 writes, 2");
    expect(screen.getByTestId("expiry-analysis").textContent).toContain("Kept: 2 with a recent run.");
    const save = screen.getByTestId("expiry-save");
    fireEvent.click(screen.getByRole("switch", { name: "Expire idle threads" }));
    // The choice is required first: Save stays disabled until it is made (and acknowledged for a skip).
    expect(screen.getByTestId("expiry-backup-choice")).toBeTruthy();
    expect((save as HTMLButtonElement).disabled).toBe(true);
    fireEvent.click(screen.getByRole("radio", { name: /Skip the backup/ }));
    expect((save as HTMLButtonElement).disabled).toBe(true);
    fireEvent.click(screen.getByRole("checkbox"));
    expect((save as HTMLButtonElement).disabled).toBe(false);
    fireEvent.click(save);
    const confirm = screen.getByTestId("expiry-confirm");
    expect(confirm.textContent).toContain("Delete threads idle longer than 90 days?");
    expect(confirm.textContent).toContain("3 threads with 120 checkpoints");
    expect(confirm.textContent).toContain("No backup is made.");
    expect(calls.some((c) => c.method === "PUT" && c.url.endsWith("/thread-expiry"))).toBe(false);
    fireEvent.click(within(confirm).getByRole("button", { name: "Delete idle threads" }));
    await waitFor(() =>
      expect(calls.find((c) => c.method === "PUT" && c.url.endsWith("/thread-expiry"))?.body).toEqual({
        policy: { enabled: true, age: { value: 90, unit: "days" } },
        expectedRevision: 0,
        preparation: "skip",
      }),
    );
  });

  it("after a failed backup the same policy is saved again with a new choice, behind the confirmation", async () => {
    const calls = serve(
      expiryStatus({
        policy: { enabled: true, age: { value: 90, unit: "days" }, revision: 3 },
        preparation: { state: "failed", choice: "backup", receipt: null, errorCode: "backup_failed", operationId: "op-p", backupBytes: null },
      }),
    );
    renderCard(true);
    expect((await screen.findByTestId("thread-expiry")).textContent).toContain("The backup failed: the backup could not be written. Expiry stays off.");
    const save = screen.getByTestId("expiry-save") as HTMLButtonElement;
    expect(save.disabled).toBe(true);
    fireEvent.click(screen.getByRole("radio", { name: /Create a backup first/ }));
    expect(save.disabled).toBe(false);
    fireEvent.click(save);
    const confirm = screen.getByTestId("expiry-confirm");
    expect(confirm.textContent).toContain("A verified backup is made first.");
    fireEvent.click(within(confirm).getByRole("button", { name: "Delete idle threads" }));
    await waitFor(() =>
      expect(calls.find((c) => c.method === "PUT" && c.url.endsWith("/thread-expiry"))?.body).toEqual({
        policy: { enabled: true, age: { value: 90, unit: "days" } },
        expectedRevision: 3,
        preparation: "backup",
      }),
    );
  });

  it("a period other than the analysed one says the counts are for another period", async () => {
    serve(expiryStatus());
    renderCard(true);
    const value = await screen.findByRole("spinbutton", { name: "Age" });
    fireEvent.change(value, { target: { value: "30" } });
    expect(screen.getByTestId("expiry-analysis").textContent).toContain("The last analysis was for 90 days");
    fireEvent.change(value, { target: { value: "0" } });
    expect((screen.getByTestId("expiry-save") as HTMLButtonElement).disabled).toBe(true);
  });
});
