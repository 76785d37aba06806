import { describe, expect, it } from "vitest";
import { deferToWindow, isInsideWindow, parseMaintenanceWindow, windowState, type MaintenanceWindow } from "./maintenance-window";

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

function window(text: string): MaintenanceWindow {
  const parsed = parseMaintenanceWindow(text);
  if (!parsed || "error" in parsed) throw new Error(`bad window ${text}`);
  return parsed;
}

describe("maintenance window", () => {
  it("parses start, end and zone; refuses malformed values; empty means none", () => {
    expect(parseMaintenanceWindow(undefined)).toBeNull();
    expect(parseMaintenanceWindow("  ")).toBeNull();
    expect(parseMaintenanceWindow("01:00-05:00 Europe/Lisbon")).toEqual({ startMinute: 60, endMinute: 300, timeZone: "Europe/Lisbon" });
    for (const bad of ["1:00-05:00 Europe/Lisbon", "01:00-05:00", "01:00-05:00 Mars/Olympus", "01:00-01:05 UTC", "25:00-05:00 UTC", "01:00-05:00 EST"]) {
      expect(parseMaintenanceWindow(bad)).toEqual({ error: expect.any(String) });
    }
  });

  it("a window across midnight is open on both sides of it", () => {
    const w = window("22:00-04:00 UTC");
    expect(isInsideWindow(w, at("2026-06-01T23:30:00Z"))).toBe(true);
    expect(isInsideWindow(w, at("2026-06-02T03:59:00Z"))).toBe(true);
    expect(isInsideWindow(w, at("2026-06-02T04:00:00Z"))).toBe(false);
    expect(iso(windowState(w, at("2026-06-02T12:00:00Z")).nextStartMs)).toBe("2026-06-02T22:00:00.000Z");
  });

  it("Europe/Lisbon, spring forward (29 Mar 2026, 01:00 -> 02:00): 01:00-05:00 opens at 02:00 WEST and lasts 3 hours", () => {
    const w = window("01:00-05:00 Europe/Lisbon");
    // The day before (WET = UTC): 01:00-05:00 local is 01:00-05:00 UTC.
    expect(windowState(w, at("2026-03-28T12:00:00Z"))).toEqual({ open: false, nextStartMs: at("2026-03-29T01:00:00Z"), endsAtMs: null });
    // 01:00 UTC on the 29th is already 02:00 WEST (01:00 local never happens).
    expect(isInsideWindow(w, at("2026-03-29T00:59:00Z"))).toBe(false);
    const open = windowState(w, at("2026-03-29T01:00:00Z"));
    expect(iso(open.endsAtMs)).toBe("2026-03-29T04:00:00.000Z");
    // From then on 01:00 WEST is 00:00 UTC.
    expect(iso(open.nextStartMs)).toBe("2026-03-30T00:00:00.000Z");
  });

  it("Europe/Lisbon, fall back (25 Oct 2026, 02:00 -> 01:00): 01:00-05:00 opens at the first 01:00 and lasts 5 hours", () => {
    const w = window("01:00-05:00 Europe/Lisbon");
    const state = windowState(w, at("2026-10-24T12:00:00Z"));
    expect(iso(state.nextStartMs)).toBe("2026-10-25T00:00:00.000Z");
    expect(iso(windowState(w, state.nextStartMs).endsAtMs)).toBe("2026-10-25T05:00:00.000Z");
    expect(isInsideWindow(w, at("2026-10-25T01:30:00Z"))).toBe(true); // the repeated 01:30, now WET
  });

  it("America/New_York, spring forward (8 Mar 2026, 02:00 -> 03:00): 02:30-04:00 opens at 03:00 EDT", () => {
    const w = window("02:30-04:00 America/New_York");
    expect(iso(deferToWindow(w, at("2026-03-07T12:00:00Z")))).toBe("2026-03-08T07:00:00.000Z");
    const state = windowState(w, at("2026-03-08T07:00:00Z"));
    expect(state.open).toBe(true);
    expect(iso(state.endsAtMs)).toBe("2026-03-08T08:00:00.000Z");
    expect(iso(state.nextStartMs)).toBe("2026-03-09T06:30:00.000Z");
  });

  it("America/New_York, fall back (1 Nov 2026, 02:00 -> 01:00): 01:30-03:00 follows the wall clock through the repeated hour", () => {
    const w = window("01:30-03:00 America/New_York");
    const opens = deferToWindow(w, at("2026-10-31T20:00:00Z"));
    expect(iso(opens)).toBe("2026-11-01T05:30:00.000Z"); // 01:30 EDT
    const first = windowState(w, opens);
    // At 02:00 EDT the clock reads 01:00 EST, before 01:30: closed until the repeated 01:30.
    expect(iso(first.endsAtMs)).toBe("2026-11-01T06:00:00.000Z");
    expect(iso(first.nextStartMs)).toBe("2026-11-01T06:30:00.000Z");
    expect(iso(windowState(w, first.nextStartMs).endsAtMs)).toBe("2026-11-01T08:00:00.000Z"); // 03:00 EST
  });

  it("no window defers nothing; inside the window an instant stays", () => {
    expect(deferToWindow(null, 1234)).toBe(1234);
    const w = window("01:00-05:00 Europe/Lisbon");
    expect(deferToWindow(w, at("2026-06-01T01:00:00Z"))).toBe(at("2026-06-01T01:00:00Z"));
  });
});
