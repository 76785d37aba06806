// @vitest-environment jsdom
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { NextIntlClientProvider } from "next-intl";
import type { ReactNode } from "react";
import { afterEach, describe, expect, it, vi } from "vitest";
import apiErrorsEn from "@/messages/api-errors/en.json";
import databaseEn from "@/messages/database/en.json";
import storageHistoryEn from "@/messages/storage-history/en.json";
import taskCompactionEn from "@/messages/task-compaction/en.json";
import { formatDateTime } from "@/lib/i18n/format";
import { BackupsCard } from "./backups-card";
import { StatsCard } from "./stats-card";

const t = databaseEn.databaseCards;
const NAME = "workspace-2026-11-29T10-00-00Z-0123abcd.db";

const STATS = {
  capability: "supported",
  maintenanceBusy: null,
  fileBytes: 4_000_000,
  walBytes: 0,
  pageSize: 4096,
  pageCount: 1024,
  freePages: 12,
  freeBytes: 12 * 4096,
  tables: [{ name: "messages", rows: 3, tableBytes: 8192, indexBytes: 4096, totalBytes: 12288, bytesMethod: "remainder" }],
};

type Answer = { status: number; body: unknown };

/** Answers by "METHOD path"; records every request made. */
function serve(routes: Record<string, Answer>) {
  const calls: string[] = [];
  vi.stubGlobal(
    "fetch",
    vi.fn(async (url: string, init?: RequestInit) => {
      const key = `${init?.method ?? "GET"} ${url}`;
      calls.push(key);
      const answer = routes[key] ?? { status: 404, body: { error: { code: "not_found", message: "x" } } };
      return new Response(JSON.stringify(answer.body), { status: answer.status, headers: { "content-type": "application/json" } });
    }),
  );
  return calls;
}

function mount(children: ReactNode) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(
    <QueryClientProvider client={client}>
      <NextIntlClientProvider locale="en" messages={{ ...databaseEn, ...apiErrorsEn, ...storageHistoryEn, ...taskCompactionEn }} timeZone="UTC">
        {children}
      </NextIntlClientProvider>
    </QueryClientProvider>,
  );
}

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe("stats card", () => {
  it("[TPR-UI-06] a 503 from VACUUM is shown as an error with its code; the stats stay on screen", async () => {
    serve({
      "GET /api/v1/system/database/stats": { status: 200, body: STATS },
      "POST /api/v1/system/database/vacuum": { status: 503, body: { error: { code: "maintenance_busy", message: "busy" } } },
    });
    mount(<StatsCard isAdmin />);
    expect(await screen.findByText("4 MB")).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: t.vacuum.run }));
    const alert = await screen.findByTestId("vacuum-error");
    expect(alert.textContent).toContain("503 · maintenance_busy");
    expect(alert.textContent).toContain(apiErrorsEn.apiErrors.codes.maintenance_busy);
    expect(document.activeElement).toBe(alert);
    expect(screen.getByTestId("stat-file-size").textContent).toBe("4 MB");
  });

  it("[TPR-UI-16] a viewer gets no VACUUM button, only the explanation", async () => {
    serve({ "GET /api/v1/system/database/stats": { status: 200, body: STATS } });
    mount(<StatsCard isAdmin={false} />);
    expect(await screen.findByTestId("vacuum-read-only")).toBeTruthy();
    expect(screen.queryByRole("button", { name: t.vacuum.run })).toBeNull();
  });
});

describe("a maintenance lock of another host (#26 item 7)", () => {
  const LOCK = { id: "far-lock", kind: "vacuum", host: "old-container-7f3a", acquiredAt: "2026-11-30T08:00:00Z" };

  it("[#26-7] is explained to a viewer, with no way to clear it", async () => {
    serve({ "GET /api/v1/system/database/stats": { status: 200, body: { ...STATS, maintenanceBusy: "vacuum", unverifiableLock: LOCK } } });
    mount(<StatsCard isAdmin={false} />);
    const panel = await screen.findByTestId("unverifiable-lock");
    expect(panel.textContent).toContain("old-container-7f3a");
    expect(panel.textContent).toContain(formatDateTime(Date.parse(LOCK.acquiredAt), "en", "UTC"));
    expect(panel.textContent).toContain(t.lock.viewerNote);
    expect(screen.queryByTestId("unverifiable-lock-open")).toBeNull();
    // The generic busy notice gives way to the explanation.
    expect(screen.queryByTestId("stats-busy")).toBeNull();
  });

  it("[#26-7] an admin clears it only once the host is typed exactly; a refusal shows its code", async () => {
    const calls = serve({
      "GET /api/v1/system/database/stats": { status: 200, body: { ...STATS, maintenanceBusy: "vacuum", unverifiableLock: LOCK } },
      "POST /api/v1/system/database/maintenance-lock/clear": { status: 409, body: { error: { code: "maintenance_lock_changed", message: "changed" } } },
    });
    const bodies: unknown[] = [];
    const fetchMock = globalThis.fetch as unknown as { mock: { calls: [string, RequestInit | undefined][] } };
    mount(<StatsCard isAdmin />);
    fireEvent.click(await screen.findByTestId("unverifiable-lock-open"));
    const input = screen.getByTestId("unverifiable-lock-input");
    const confirm = screen.getByTestId("unverifiable-lock-confirm") as HTMLButtonElement;
    expect(document.activeElement).toBe(input);
    fireEvent.change(input, { target: { value: "old-container" } });
    expect(confirm.disabled).toBe(true);
    fireEvent.change(input, { target: { value: "old-container-7f3a" } });
    expect(confirm.disabled).toBe(false);
    fireEvent.click(confirm);
    const failed = await screen.findByText(apiErrorsEn.apiErrors.codes.maintenance_lock_changed);
    expect(failed).toBeTruthy();
    for (const [url, init] of fetchMock.mock.calls) if (url.endsWith("/maintenance-lock/clear")) bodies.push(JSON.parse(String(init?.body)));
    expect(bodies).toEqual([{ id: "far-lock", confirm: "old-container-7f3a" }]);
    // The stats are read again after the attempt, cleared or not.
    expect(calls.filter((call) => call === "GET /api/v1/system/database/stats").length).toBeGreaterThanOrEqual(2);
  });

  it("[#26-7] an unreadable host is named as such and the lock's id confirms instead", async () => {
    serve({ "GET /api/v1/system/database/stats": { status: 200, body: { ...STATS, maintenanceBusy: "vacuum", unverifiableLock: { ...LOCK, host: null, kind: null, acquiredAt: null } } } });
    mount(<StatsCard isAdmin />);
    const panel = await screen.findByTestId("unverifiable-lock");
    expect(panel.textContent).toContain(t.lock.unreadableHost);
    expect(panel.textContent).toContain(t.lock.unknownOperation);
    fireEvent.click(screen.getByTestId("unverifiable-lock-open"));
    expect(screen.getByLabelText(t.lock.typeId)).toBeTruthy();
    fireEvent.change(screen.getByTestId("unverifiable-lock-input"), { target: { value: "far-lock" } });
    expect((screen.getByTestId("unverifiable-lock-confirm") as HTMLButtonElement).disabled).toBe(false);
  });
});

describe("stats card states", () => {
  it("[TPR-UI-06] a busy guard is shown as a notice, and a failed stats read shows its code while VACUUM stays offered", async () => {
    serve({ "GET /api/v1/system/database/stats": { status: 200, body: { ...STATS, maintenanceBusy: "backup" } } });
    mount(<StatsCard isAdmin />);
    expect((await screen.findByTestId("stats-busy")).textContent).toContain("backup");
    cleanup();
    serve({ "GET /api/v1/system/database/stats": { status: 503, body: { error: { code: "maintenance_busy", message: "busy" } } } });
    mount(<StatsCard isAdmin />);
    expect((await screen.findByTestId("stats-error")).textContent).toContain("503 · maintenance_busy");
    expect(screen.getByRole("button", { name: t.vacuum.run })).toBeTruthy();
  });

  it("an unsupported engine shows a clear state and no VACUUM action", async () => {
    serve({ "GET /api/v1/system/database/stats": { status: 200, body: { capability: "unsupported" } } });
    mount(<StatsCard isAdmin />);
    expect(await screen.findByText(t.stats.unsupported)).toBeTruthy();
    expect(screen.queryByRole("button", { name: t.vacuum.run })).toBeNull();
  });
});

describe("table sizes", () => {
  const table = (name: string, totalBytes: number) => ({ name, rows: 1, tableBytes: totalBytes, indexBytes: 0, totalBytes, bytesMethod: "dbstat" });

  it("lists the largest tables first behind a disclosure button that reports its state", async () => {
    const tables = [table("users", 4096), table("messages", 900_000), table("settings", 4096), table("tasks", 65_536)];
    serve({ "GET /api/v1/system/database/stats": { status: 200, body: { ...STATS, tables } } });
    mount(<StatsCard isAdmin />);
    const list = await screen.findByTestId("table-sizes");
    const order = within(list)
      .getAllByRole("row")
      .map((row) => row.getAttribute("data-testid"))
      .filter(Boolean);
    expect(order).toEqual(["table-row-messages", "table-row-tasks", "table-row-settings", "table-row-users"]);
    const toggle = screen.getByTestId("table-sizes-toggle");
    expect(toggle.tagName).toBe("BUTTON");
    expect(toggle.getAttribute("aria-expanded")).toBe("false");
    expect(toggle.textContent).toBe("Show sizes of 4 tables");
    expect(document.getElementById(toggle.getAttribute("aria-controls") ?? "")).toBe(screen.getByTestId("table-sizes-region"));
    fireEvent.click(toggle);
    expect(toggle.getAttribute("aria-expanded")).toBe("true");
    expect(toggle.textContent).toBe(t.stats.hideTables);
  });
});

describe("backups card", () => {
  const LIST = { capability: "supported", keep: 10, backups: [{ name: NAME, sizeBytes: 2048, createdAt: "2026-11-29T10:00:00Z" }] };

  it("[#30] says how many backups are kept once the server has answered, never a 0 while loading", async () => {
    let answer: (response: Response) => void = () => {};
    vi.stubGlobal("fetch", vi.fn(() => new Promise<Response>((resolve) => (answer = resolve))));
    mount(<BackupsCard isAdmin />);
    const card = screen.getByTestId("backups-card");
    expect(card.textContent).toContain(t.backups.description);
    expect(card.textContent).not.toMatch(/\b0 backups/);
    answer(new Response(JSON.stringify(LIST), { status: 200, headers: { "content-type": "application/json" } }));
    await screen.findByTestId("backup-row");
    expect(card.textContent).toContain(`${t.backups.description} The newest 10 backups are kept.`);
  });

  it("[TPR-UI-16] viewers see the list without any action controls", async () => {
    serve({ "GET /api/v1/system/database/backups": { status: 200, body: LIST } });
    mount(<BackupsCard isAdmin={false} />);
    const row = await screen.findByTestId("backup-row");
    expect(row.textContent).toContain(NAME);
    expect(within(row).queryAllByRole("button")).toHaveLength(0);
    expect(within(row).queryAllByRole("link")).toHaveLength(0);
    expect(screen.queryByTestId("backup-create")).toBeNull();
  });

  it("[TPR-PREP-04] deleting the pinned preparation backup asks for its typed name and says compaction needs a new preparation", async () => {
    const pinned = { ...LIST, backups: [{ ...LIST.backups[0], pinned: true }] };
    const calls = serve({
      "GET /api/v1/system/database/backups": { status: 200, body: pinned },
      [`DELETE /api/v1/system/database/backups/${NAME}?confirm=${NAME}`]: { status: 200, body: { deleted: NAME } },
    });
    mount(<BackupsCard isAdmin />);
    expect((await screen.findByTestId("backup-pinned")).textContent).toBe(t.backups.pinnedBadge);
    fireEvent.click(screen.getByTestId("backup-delete"));
    const panel = screen.getByTestId("pinned-delete-confirm");
    expect(panel.textContent).toContain(t.backups.pinnedDeleteWarning);
    const input = screen.getByTestId("pinned-delete-input");
    expect(document.activeElement).toBe(input);
    const confirm = screen.getByTestId("pinned-delete-button") as HTMLButtonElement;
    expect(confirm.disabled).toBe(true);
    fireEvent.change(input, { target: { value: NAME.slice(0, -1) } });
    expect(confirm.disabled).toBe(true);
    fireEvent.change(input, { target: { value: NAME } });
    expect(confirm.disabled).toBe(false);
    fireEvent.click(confirm);
    await vi.waitFor(() => expect(calls).toContain(`DELETE /api/v1/system/database/backups/${NAME}?confirm=${NAME}`));
  });

  it("deleting a backup, pinned or not, says that it ends per-task restore from that backup (#29)", async () => {
    const window = taskCompactionEn.taskCompaction.restoreWindow.delete;
    serve({ "GET /api/v1/system/database/backups": { status: 200, body: LIST } });
    mount(<BackupsCard isAdmin />);
    fireEvent.click(await screen.findByTestId("backup-delete"));
    expect(within(screen.getByTestId("delete-confirm")).getByTestId("restore-window-delete").textContent).toBe(window);
    cleanup();
    serve({ "GET /api/v1/system/database/backups": { status: 200, body: { ...LIST, backups: [{ ...LIST.backups[0], pinned: true }] } } });
    mount(<BackupsCard isAdmin />);
    fireEvent.click(await screen.findByTestId("backup-delete"));
    expect(within(screen.getByTestId("pinned-delete-confirm")).getByTestId("restore-window-delete").textContent).toBe(window);
  });

  it("[TPR-PREP-04] a plain delete refused with backup_pinned (pinned since the list was read) turns into the typed confirmation", async () => {
    const calls = serve({
      "GET /api/v1/system/database/backups": { status: 200, body: LIST },
      [`DELETE /api/v1/system/database/backups/${NAME}`]: { status: 409, body: { error: { code: "backup_pinned", message: "pinned" } } },
    });
    mount(<BackupsCard isAdmin />);
    fireEvent.click(await screen.findByTestId("backup-delete"));
    fireEvent.click(screen.getByTestId("delete-confirm-button"));
    expect(await screen.findByTestId("pinned-delete-confirm")).toBeTruthy();
    expect(calls).toContain(`DELETE /api/v1/system/database/backups/${NAME}`);
  });

  it("[TPR-UI-14] restore asks for the exact name inline and then says a restart is required", async () => {
    const calls = serve({
      "GET /api/v1/system/database/backups": { status: 200, body: LIST },
      [`POST /api/v1/system/database/backups/${NAME}/restore`]: { status: 200, body: { restored: NAME, restartRequired: true } },
    });
    mount(<BackupsCard isAdmin />);
    fireEvent.click(await screen.findByTestId("backup-restore"));
    const confirm = screen.getByTestId("restore-confirm-button") as HTMLButtonElement;
    expect(confirm.disabled).toBe(true);
    fireEvent.change(screen.getByTestId("restore-input"), { target: { value: NAME.slice(0, -1) } });
    expect(confirm.disabled).toBe(true);
    fireEvent.change(screen.getByTestId("restore-input"), { target: { value: NAME } });
    expect(confirm.disabled).toBe(false);
    expect(screen.queryByRole("dialog")).toBeNull();
    fireEvent.click(confirm);
    const notice = await screen.findByTestId("restore-restart-required");
    expect(notice.textContent).toContain(t.backups.restartRequired);
    expect(calls).toContain(`POST /api/v1/system/database/backups/${NAME}/restore`);
  });
});
