// @vitest-environment jsdom
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { NextIntlClientProvider } from "next-intl";
import { afterEach, describe, expect, it, vi } from "vitest";
import apiErrorsEn from "@/messages/api-errors/en.json";
import auditEn from "@/messages/audit/en.json";
import databaseEn from "@/messages/database/en.json";
import zhTw from "@/messages/audit/zh-tw.json";
import { ActivityCard } from "./activity-card";

const t = auditEn.activity;
const NOW = new Date("2026-07-01T12:00:00Z");

function entry(id: number, extra: Record<string, unknown>) {
  return { id, at: "2026-07-01T09:00:00.000Z", actor: "u1", actorEmail: "admin@example.com", result: "ok", errorCode: null, detail: {}, ...extra };
}

function serve(pages: Record<string, { status: number; body: unknown }>) {
  const calls: string[] = [];
  vi.stubGlobal(
    "fetch",
    vi.fn(async (url: string) => {
      calls.push(url);
      const answer = pages[url] ?? { status: 404, body: { error: { code: "not_found", message: "x" } } };
      return new Response(JSON.stringify(answer.body), { status: answer.status, headers: { "content-type": "application/json" } });
    }),
  );
  return calls;
}

function mount(options: { locale?: string; timeZone?: string; messages?: Record<string, unknown> } = {}) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(
    <QueryClientProvider client={client}>
      <NextIntlClientProvider
        locale={options.locale ?? "en"}
        messages={{ ...databaseEn, ...apiErrorsEn, ...(options.messages ?? auditEn) }}
        timeZone={options.timeZone ?? "Europe/Lisbon"}
        now={NOW}
      >
        <ActivityCard />
      </NextIntlClientProvider>
    </QueryClientProvider>,
  );
}

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const FIRST = "/api/v1/system/audit?limit=20";

describe("activity card", () => {
  it("lists entries with who, what, local time with zone and relative time, failures with their code; loads older pages", async () => {
    const calls = serve({
      [FIRST]: {
        status: 200,
        body: {
          retentionDays: 90,
          nextCursor: "5",
          entries: [
            entry(7, {
              kind: "policy.changed",
              detail: { before: { enabled: false, age: { value: 3, unit: "months" }, revision: 0 }, after: { enabled: true, age: { value: 3, unit: "months" }, revision: 1 }, revision: 1 },
            }),
            entry(6, { kind: "auth.sign_in", actor: "unknown", actorEmail: null, result: "failed", errorCode: "invalid_credentials" }),
          ],
        },
      },
      "/api/v1/system/audit?limit=20&cursor=5": { status: 200, body: { retentionDays: 90, nextCursor: null, entries: [entry(5, { kind: "backup.created", actor: "cli", actorEmail: null, detail: { backupName: "b.db" } })] } },
    });
    mount();
    const list = await screen.findByTestId("activity-list");
    const rows = within(list).getAllByTestId("activity-entry");
    expect(rows).toHaveLength(2);
    expect(rows[0]!.textContent).toContain(t.kinds.policy.changed);
    expect(rows[0]!.textContent).toContain("By admin@example.com");
    expect(rows[0]!.textContent).toContain("off → on, older than 3 months (revision 1)");
    // 09:00Z is 10:00 in Lisbon in July (WEST), 3 hours before "now".
    expect(rows[0]!.textContent).toContain("Jul 1, 2026, 10:00 AM GMT+1");
    expect(rows[0]!.textContent).toContain("3 hr. ago");
    expect(rows[1]!.textContent).toContain("By an unknown account");
    expect(rows[1]!.textContent).toContain(`${apiErrorsEn.apiErrors.codes.invalid_credentials} (code invalid_credentials)`);
    expect(screen.getByText(/kept for 90 days/)).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: t.loadOlder }));
    expect(await screen.findByText("Backup b.db")).toBeTruthy();
    expect(screen.getAllByTestId("activity-entry")).toHaveLength(3);
    expect(screen.queryByRole("button", { name: t.loadOlder })).toBeNull();
    expect(calls).toEqual([FIRST, "/api/v1/system/audit?limit=20&cursor=5"]);
  });

  it("filters by kind, says when nothing matches, and shows a load error", async () => {
    const calls = serve({
      [FIRST]: { status: 200, body: { retentionDays: 180, nextCursor: null, entries: [] } },
      "/api/v1/system/audit?limit=20&kind=database.vacuumed": { status: 403, body: { error: { code: "forbidden", message: "x" } } },
    });
    mount();
    expect((await screen.findByTestId("activity-empty")).textContent).toBe(t.empty);
    fireEvent.change(screen.getByTestId("activity-kind"), { target: { value: "database.vacuumed" } });
    const error = await screen.findByTestId("activity-error");
    expect(error.textContent).toContain(t.loadFailed);
    expect(calls).toContain("/api/v1/system/audit?limit=20&kind=database.vacuumed");
  });

  it("speaks the viewer's language and zone (zh-tw, Asia/Taipei)", async () => {
    serve({ [FIRST]: { status: 200, body: { retentionDays: 180, nextCursor: null, entries: [entry(1, { kind: "database.vacuumed", detail: { freedBytes: 2048 } })] } } });
    mount({ locale: "zh-tw", timeZone: "Asia/Taipei", messages: zhTw });
    const row = await screen.findByTestId("activity-entry");
    expect(row.textContent).toContain(zhTw.activity.kinds.database.vacuumed);
    expect(row.textContent).toContain("下午5:00");
    expect(row.textContent).toContain("3 小時前");
  });
});
