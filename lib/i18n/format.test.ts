import { describe, expect, it } from "vitest";
import { formatBytes, formatBytesExact, formatCount, formatDateTime, formatDuration, formatRelative, joinSentences } from "./format";
import { validTimeZone } from "./time-zone";

describe("locale formatting", () => {
  it("[TPR-UI-15] bytes use decimal SI steps (the units their labels name) and the locale's number format", () => {
    expect(formatBytes(0, "en")).toBe("0 B");
    expect(formatBytes(999, "en")).toBe("999 B");
    expect(formatBytes(1000, "en")).toBe("1 kB");
    expect(formatBytes(1500, "en")).toBe("1.5 kB");
    expect(formatBytes(1024, "en")).toBe("1 kB");
    expect(formatBytes(5e9, "en")).toBe("5 GB");
    expect(formatBytes(1500, "pt-pt")).toBe("1,5 kB");
    // The log's bytes=21,077,029 and the card agree: 21 MB, never "20 MB" from MiB.
    expect(formatBytes(21_077_029, "en")).toBe("21 MB");
    expect(formatBytesExact(21_077_029, "en")).toBe("21,077,029");
    // A value that rounds up to the next unit moves to it.
    expect(formatBytes(999_999, "en")).toBe("1 MB");
    expect(formatBytes(999_499, "en")).toBe("999 kB");
    for (const locale of ["zh-cn", "zh-hk", "zh-tw"]) expect(formatBytes(33_000_000, locale)).toBe("33 MB");
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

describe("seconds and durations", () => {
  it("[#30] instants can carry seconds, so two times of one scan read apart", () => {
    const ms = Date.UTC(2026, 0, 2, 23, 22, 5);
    expect(formatDateTime(ms, "en", "UTC", { seconds: true })).toBe("Jan 2, 2026, 11:22:05 PM UTC");
    expect(formatDateTime(ms, "pt-pt", "UTC", { seconds: true })).toBe("2/01/2026, 23:22:05 UTC");
    expect(formatDateTime(ms, "zh-cn", "UTC", { seconds: true })).toContain("23:22:05");
  });

  it("[#30] durations use the locale's short units, the largest two that apply", () => {
    expect(formatDuration(1_944, "en")).toBe("2 sec");
    expect(formatDuration(65_000, "en")).toBe("1 min 5 sec");
    expect(formatDuration(3_725_000, "en")).toBe("1 hr 2 min");
    expect(formatDuration(3_605_000, "en")).toBe("1 hr");
    expect(formatDuration(65_000, "pt-pt")).toBe("1 min e 5 s");
    expect(formatDuration(65_000, "zh-cn")).toBe("1分钟5秒");
    expect(formatDuration(500, "en")).toBe("500 ms");
  });
});

describe("sentences of one paragraph", () => {
  it("[#30] Chinese sentences follow each other without a space; other languages with one; absent parts leave no gap", () => {
    expect(joinSentences(["保留最新的 10 份備份。", false, "只有管理員可以建立。"], "zh-tw")).toBe("保留最新的 10 份備份。只有管理員可以建立。");
    expect(joinSentences(["Verified copies.", undefined, "Only admins can create."], "en")).toBe("Verified copies. Only admins can create.");
    expect(joinSentences(["Cópias verificadas.", null, ""], "pt-pt")).toBe("Cópias verificadas.");
  });
});
