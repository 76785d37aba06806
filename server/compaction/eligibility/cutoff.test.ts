import { describe, expect, it } from "vitest";
import { manualClock } from "@/server/clock";
import { parseRfc3339 } from "@/lib/time/rfc3339";
import { computeCutoff, isRetained } from "./cutoff";

const at = (text: string) => {
  const ms = parseRfc3339(text);
  if (ms === null) throw new Error(`bad fixture ${text}`);
  return ms;
};
const iso = (ms: number) => new Date(ms).toISOString();

describe("cutoff", () => {
  it("[TPR-ELIG-01] one UTC cutoff per pass: computed from one clock reading, independent of later clock moves", () => {
    const clock = manualClock(at("2026-05-10T12:00:00Z"));
    const nowMs = clock.now();
    const cutoff = computeCutoff({ nowMs, age: { value: 2, unit: "weeks" } });
    clock.advance(3_600_000);
    expect(computeCutoff({ nowMs, age: { value: 2, unit: "weeks" } })).toBe(cutoff);
    expect(iso(cutoff)).toBe("2026-04-26T12:00:00.000Z");
    // Offsets in the input are irrelevant: the instant is what counts.
    expect(computeCutoff({ nowMs: at("2026-05-10T14:00:00+02:00"), age: { value: 2, unit: "weeks" } })).toBe(cutoff);
  });

  it("[TPR-ELIG-02] weeks subtract exactly 7 days each, in UTC (no DST shifts)", () => {
    const nowMs = at("2026-03-30T01:30:00Z");
    expect(computeCutoff({ nowMs, age: { value: 1, unit: "weeks" } })).toBe(nowMs - 7 * 86_400_000);
    expect(iso(computeCutoff({ nowMs, age: { value: 520, unit: "weeks" } }))).toBe("2016-04-11T01:30:00.000Z");
  });

  it("[TPR-ELIG-03] months subtract calendar months and clamp to the last valid day", () => {
    const cases: [string, number, string][] = [
      ["2026-03-31T10:00:00Z", 1, "2026-02-28T10:00:00.000Z"],
      ["2024-03-31T10:00:00Z", 1, "2024-02-29T10:00:00.000Z"], // leap year
      ["2100-03-31T00:00:00Z", 1, "2100-02-28T00:00:00.000Z"], // century, not leap
      ["2000-03-31T00:00:00Z", 1, "2000-02-29T00:00:00.000Z"], // 400-year leap
      ["2026-05-31T23:59:59.999Z", 1, "2026-04-30T23:59:59.999Z"],
      ["2026-01-15T08:00:00Z", 3, "2025-10-15T08:00:00.000Z"], // crosses the year
      ["2026-12-31T00:00:00Z", 10, "2026-02-28T00:00:00.000Z"],
      ["2026-06-30T00:00:00Z", 120, "2016-06-30T00:00:00.000Z"],
      ["2028-02-29T00:00:00Z", 12, "2027-02-28T00:00:00.000Z"],
    ];
    for (const [now, months, expected] of cases) {
      expect(iso(computeCutoff({ nowMs: at(now), age: { value: months, unit: "months" } })), now).toBe(expected);
    }
  });

  it("[TPR-ELIG-04] activity equal to the cutoff is retained; one millisecond earlier is not", () => {
    const cutoff = computeCutoff({ nowMs: at("2026-06-01T00:00:00Z"), age: { value: 3, unit: "months" } });
    expect(isRetained(cutoff, cutoff)).toBe(true);
    expect(isRetained(cutoff + 1, cutoff)).toBe(true);
    expect(isRetained(cutoff - 1, cutoff)).toBe(false);
    // Same instant written with an offset is still equal, so retained.
    expect(isRetained(at("2026-03-01T01:00:00+01:00"), cutoff)).toBe(true);
  });

  it("[TPR-ELIG-04] an unreadable activity instant is retained", () => {
    expect(isRetained(null, 0)).toBe(true);
    expect(isRetained(undefined, 0)).toBe(true);
    expect(isRetained(Number.NaN, 0)).toBe(true);
  });
});
