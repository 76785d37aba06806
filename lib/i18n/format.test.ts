import { describe, expect, it } from "vitest";
import { formatBytes, formatCount, formatDateTime, formatRelative } from "./format";
import { validTimeZone } from "./time-zone";

describe("locale formatting", () => {
  it("[TPR-UI-15] bytes use binary steps and the locale's number format", () => {
    expect(formatBytes(0, "en")).toBe("0 B");
    expect(formatBytes(1023, "en")).toBe("1,023 B");
    expect(formatBytes(1536, "en")).toBe("1.5 kB");
    expect(formatBytes(5 * 1024 ** 3, "en")).toBe("5 GB");
    expect(formatBytes(1536, "pt-pt")).toBe("1,5 kB");
  });

  it("[TPR-UI-15] dates are shown in the locale's style with the zone named (UTC until the viewer's zone is known)", () => {
    const ms = Date.UTC(2026, 0, 2, 10, 30);
    expect(formatDateTime(ms, "en")).toBe("Jan 2, 2026, 10:30 AM UTC");
    expect(formatDateTime(ms, "zh-cn")).toContain("2026年1月2日");
    expect(formatDateTime(ms, "zh-cn")).toContain("UTC");
    expect(formatCount(1234567, "pt-pt").replace(/\s/g, " ")).toBe("1 234 567");
  });

  it("times are shown in the viewer's zone, following its daylight saving time, in all five locales", () => {
    const winter = Date.UTC(2026, 0, 2, 10, 30);
    const summer = Date.UTC(2026, 6, 2, 10, 30);
    expect(formatDateTime(winter, "en", "America/New_York")).toBe("Jan 2, 2026, 5:30 AM EST");
    expect(formatDateTime(summer, "en", "America/New_York")).toBe("Jul 2, 2026, 6:30 AM EDT");
    expect(formatDateTime(winter, "pt-pt", "Europe/Lisbon")).toBe("2/01/2026, 10:30 WET");
    expect(formatDateTime(summer, "pt-pt", "Europe/Lisbon")).toBe("2/07/2026, 11:30 WEST");
    expect(formatDateTime(summer, "zh-cn", "Asia/Shanghai")).toBe("2026年7月2日 GMT+8 18:30");
    expect(formatDateTime(summer, "zh-hk", "Asia/Hong_Kong")).toContain("下午6:30");
    expect(formatDateTime(summer, "zh-tw", "Asia/Taipei")).toContain("下午6:30");
  });

  it("relative times name the nearest unit in each locale", () => {
    const now = Date.UTC(2026, 0, 2, 10, 30);
    expect(formatRelative(now + 3 * 3_600_000, now, "en")).toBe("in 3 hr.");
    expect(formatRelative(now - 5 * 60_000, now, "en")).toBe("5 min. ago");
    expect(formatRelative(now + 2 * 86_400_000, now, "pt-pt")).toBe("depois de amanhã");
    expect(formatRelative(now - 5 * 60_000, now, "zh-cn")).toBe("5分钟前");
    expect(formatRelative(now + 3 * 3_600_000, now, "zh-tw")).toBe("3 小時後");
  });

  it("the time zone cookie accepts IANA zones only", () => {
    expect(validTimeZone("Europe/Lisbon")).toBe("Europe/Lisbon");
    expect(validTimeZone("UTC")).toBe("UTC");
    for (const bad of [undefined, "", "Mars/Olympus", "Europe/Lisbon; path=/", "x".repeat(80)]) expect(validTimeZone(bad)).toBeNull();
  });
});
