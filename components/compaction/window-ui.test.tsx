// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { NextIntlClientProvider } from "next-intl";
import type { ReactNode } from "react";
import { afterEach, describe, expect, it, vi } from "vitest";
import compactionEn from "@/messages/compaction/en.json";
import windowEn from "@/messages/maintenance-window/en.json";
import windowPt from "@/messages/maintenance-window/pt-pt.json";
import { idleStatusBody, type CompactionStatusBody, type MaintenanceWindowView } from "@/lib/compaction/api";
import type { CompactionAge, CompactionOperation } from "@/lib/compaction/policy";
import { RemovalConfirm, useRemovalConfirm } from "./removal-confirm";
import { useCompactionFormat } from "./use-compaction-format";
import { WindowNote } from "./window-note";

const NOW = new Date("2026-07-01T11:00:00Z");
const closed: MaintenanceWindowView = { start: "01:00", end: "05:00", timeZone: "Europe/Lisbon", open: false, nextStartAt: "2026-07-02T00:00:00.000Z", endsAt: null };

function mount(children: ReactNode, locale = "en", messages: Record<string, unknown> = windowEn) {
  render(
    <NextIntlClientProvider locale={locale} messages={{ ...compactionEn, ...messages }} timeZone="America/New_York" now={NOW}>
      {children}
    </NextIntlClientProvider>,
  );
}

afterEach(cleanup);

describe("maintenance window on the compaction card", () => {
  it("shows the window's hours in its zone and the next start in the viewer's zone, with how far away it is", () => {
    mount(<WindowNote window={closed} />);
    expect(screen.getByTestId("retention-window").textContent).toContain("01:00–05:00 (Europe/Lisbon), every day");
    // 00:00Z on 2 July is 8:00 PM EDT on 1 July, 13 hours after "now".
    expect(screen.getByTestId("retention-window-next").textContent).toBe("Next opens Jul 1, 2026, 8:00 PM EDT (in 13 hr.).");
  });

  it("while open it says until when (pt-pt)", () => {
    mount(<WindowNote window={{ ...closed, open: true, endsAt: "2026-07-01T12:00:00.000Z" }} />, "pt-pt", windowPt);
    expect(screen.getByTestId("retention-window-next").textContent).toBe("Aberta agora, até 1/07/2026, 08:00 GMT-4 (dentro de 1 h).");
  });

  it("outside the window the confirmation of a manual run says so, with the analysis's numbers, and resolves with the choice", async () => {
    const analyze = vi.fn(async () => ({ ok: true as const, value: { operationId: "an-9" } }));
    const decisions: boolean[] = [];
    mount(<ConfirmHarness status={statusWith({ maintenanceWindow: closed })} analyze={analyze} onDecision={(d) => decisions.push(d)} />);
    fireEvent.click(screen.getByRole("button", { name: "ask" }));
    const dialog = await screen.findByTestId("retention-confirm");
    expect(screen.getByTestId("retention-confirm-removed").textContent).toBe("About 5 MB of tool payloads from 340 messages in 12 tasks.");
    expect(screen.getByTestId("retention-confirm-when").textContent).toBe("Now, outside the maintenance window (it next opens Jul 1, 2026, 8:00 PM EDT, in 13 hr.); this pass runs to its end.");
    expect(dialog.textContent).toContain("Only restoring a backup brings the payloads back");
    // A current analysis: nothing is counted again.
    expect(analyze).not.toHaveBeenCalled();
    fireEvent.click(screen.getByTestId("retention-confirm-cancel"));
    await vi.waitFor(() => expect(decisions).toEqual([false]));
    fireEvent.click(screen.getByRole("button", { name: "ask" }));
    fireEvent.click(await screen.findByTestId("retention-confirm-confirm"));
    await vi.waitFor(() => expect(decisions).toEqual([false, true]));
  });

  it("without a current analysis for the age, the confirmation runs one first and waits for it", async () => {
    const analyze = vi.fn(async () => ({ ok: true as const, value: { operationId: "an-9" } }));
    mount(<ConfirmHarness status={statusWith({ maintenanceWindow: null, latestAnalysis: null })} analyze={analyze} onDecision={() => {}} />);
    fireEvent.click(screen.getByRole("button", { name: "ask" }));
    await screen.findByTestId("retention-confirm");
    expect(analyze).toHaveBeenCalledWith({ value: 3, unit: "months" });
    const confirm = screen.getByTestId("retention-confirm-confirm") as HTMLButtonElement;
    expect(confirm.disabled).toBe(true);
    expect(confirm.textContent).toBe(compactionEn.compaction.confirm.counting);
  });
});

const ANALYSIS: CompactionOperation = {
  id: "an-1",
  kind: "analysis",
  state: "succeeded",
  startedAt: "2026-07-01T10:00:00Z",
  finishedAt: "2026-07-01T10:01:00Z",
  cutoff: "2026-04-01T10:00:00Z",
  scannedRows: 400,
  eligibleTasks: 12,
  eligibleMessages: 340,
  changedMessages: 0,
  payloadBytes: 5_000_000,
  skipped: {},
  stale: false,
  fingerprint: "months:3",
};

function statusWith(patch: Partial<CompactionStatusBody>): CompactionStatusBody {
  return {
    ...idleStatusBody({ capability: "supported", recordState: "ok", policy: { enabled: true, age: { value: 3, unit: "months" }, revision: 2 } }),
    armed: true,
    latestAnalysis: ANALYSIS,
    ...patch,
  };
}

function ConfirmHarness(props: { status: CompactionStatusBody; analyze: (age: CompactionAge) => Promise<{ ok: true; value: { operationId: string } }>; onDecision: (confirmed: boolean) => void }) {
  const confirmation = useRemovalConfirm({ status: props.status, analyze: props.analyze });
  const format = useCompactionFormat();
  return (
    <>
      <button type="button" onClick={() => void confirmation.request({ kind: "run", age: props.status.policy.age, choice: null }).then(props.onDecision)}>
        ask
      </button>
      <RemovalConfirm pending={confirmation.pending} status={props.status} live={null} format={format} onConfirm={confirmation.confirm} onCancel={confirmation.cancel} />
    </>
  );
}
