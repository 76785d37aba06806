import { describe, expect, it } from "vitest";
import { formatBytes, formatCount, formatDateTime } from "./format";

describe("locale formatting", () => {
  it("[TPR-UI-15] bytes use binary steps and the locale's number format", () => {
    expect(formatBytes(0, "en")).toBe("0 B");
    expect(formatBytes(1023, "en")).toBe("1,023 B");
    expect(formatBytes(1536, "en")).toBe("1.5 kB");
    expect(formatBytes(5 * 1024 ** 3, "en")).toBe("5 GB");
    expect(formatBytes(1536, "pt-pt")).toBe("1,5 kB");
  });

  it("[TPR-UI-15] dates are shown in UTC in the locale's style", () => {
    const ms = Date.UTC(2026, 0, 2, 10, 30);
    expect(formatDateTime(ms, "en")).toBe("Jan 2, 2026, 10:30 AM");
    expect(formatDateTime(ms, "zh-cn")).toContain("2026年1月2日");
    expect(formatCount(1234567, "pt-pt").replace(/\s/g, " ")).toBe("1 234 567");
  });
});
