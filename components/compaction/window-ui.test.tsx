// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { NextIntlClientProvider } from "next-intl";
import type { ReactNode } from "react";
import { afterEach, describe, expect, it, vi } from "vitest";
import compactionEn from "@/messages/compaction/en.json";
import windowEn from "@/messages/maintenance-window/en.json";
import windowPt from "@/messages/maintenance-window/pt-pt.json";
import type { MaintenanceWindowView } from "@/lib/compaction/api";
import { RunNowButton } from "./run-now-button";
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

  it("outside the window a manual run asks first and is sent with the confirmation", () => {
    const onRun = vi.fn();
    mount(<RunNowButton window={closed} starting={false} onRun={onRun} />);
    fireEvent.click(screen.getByRole("button", { name: compactionEn.compaction.run.runNow }));
    expect(onRun).not.toHaveBeenCalled();
    expect(screen.getByTestId("retention-window-confirm").textContent).toContain("The window opens Jul 1, 2026, 8:00 PM EDT (in 13 hr.)");
    fireEvent.click(screen.getByRole("button", { name: windowEn.maintenanceWindow.wait }));
    expect(onRun).not.toHaveBeenCalled();
    fireEvent.click(screen.getByRole("button", { name: compactionEn.compaction.run.runNow }));
    fireEvent.click(screen.getByRole("button", { name: windowEn.maintenanceWindow.runAnyway }));
    expect(onRun).toHaveBeenCalledWith({ outsideWindow: true });
  });

  it("inside the window, or with none, the run starts at once", () => {
    const onRun = vi.fn();
    mount(<RunNowButton window={null} starting={false} onRun={onRun} />);
    fireEvent.click(screen.getByRole("button", { name: compactionEn.compaction.run.runNow }));
    expect(onRun).toHaveBeenCalledWith();
  });
});
