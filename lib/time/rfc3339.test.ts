import { describe, expect, it } from "vitest";
import { formatUtc, parseRfc3339 } from "./rfc3339";

describe("parseRfc3339", () => {
  it("[TPR-ELIG-06] compares offsets chronologically, not as text", () => {
    const a = parseRfc3339("2026-01-01T00:30:00+01:00")!;
    const b = parseRfc3339("2025-12-31T23:45:00Z")!;
    expect("2026-01-01T00:30:00+01:00" > "2025-12-31T23:45:00Z").toBe(true);
    expect(a).toBeLessThan(b);
  });

  it("accepts fractions and lowercase separators", () => {
    expect(parseRfc3339("2026-02-03t04:05:06.789z")).toBe(Date.UTC(2026, 1, 3, 4, 5, 6, 789));
    expect(parseRfc3339("2026-02-03T04:05:06.123456789-02:30")).toBe(Date.UTC(2026, 1, 3, 6, 35, 6, 123));
  });

  it.each([
    ["empty", ""],
    ["date only", "2026-01-01"],
    ["no zone", "2026-01-01T00:00:00"],
    ["bad month", "2026-13-01T00:00:00Z"],
    ["bad day", "2026-02-30T00:00:00Z"],
    ["bad hour", "2026-01-01T24:00:00Z"],
    ["garbage", "yesterday"],
    ["bad offset", "2026-01-01T00:00:00+25:00"],
  ])("[TPR-ELIG-07] rejects %s", (_name, text) => {
    expect(parseRfc3339(text)).toBeNull();
  });

  it("rejects non-strings", () => {
    expect(parseRfc3339(null)).toBeNull();
    expect(parseRfc3339(undefined)).toBeNull();
  });

  it("formats UTC", () => {
    expect(formatUtc(Date.UTC(2026, 0, 2, 3, 4, 5))).toBe("2026-01-02T03:04:05.000Z");
  });
});
