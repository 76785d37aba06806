import { describe, expect, it } from "vitest";
import { DAY_MS, MINUTE_MS, continuationAt, nextDueAfterCompletePass, scheduledStartAt } from "./schedule";

const T0 = Date.UTC(2026, 10, 29, 12, 0, 0);

describe("schedule", () => {
  it("[TPR-SCH-03] next due time is 24 h after a complete pass", () => {
    expect(nextDueAfterCompletePass(T0)).toBe(T0 + DAY_MS);
  });

  it("[TPR-SCH-04] an overdue pass starts 1 minute after readiness, not as a catch-up burst", () => {
    const threeDaysLate = T0 - 3 * DAY_MS;
    expect(scheduledStartAt({ nextDueAtMs: threeDaysLate, readyAtMs: T0, nowMs: T0 })).toBe(T0 + MINUTE_MS);
    expect(scheduledStartAt({ nextDueAtMs: null, readyAtMs: T0, nowMs: T0 })).toBe(T0 + MINUTE_MS);
  });

  it("a future due time is kept", () => {
    expect(scheduledStartAt({ nextDueAtMs: T0 + 5 * 60 * MINUTE_MS, readyAtMs: T0, nowMs: T0 })).toBe(T0 + 5 * 60 * MINUTE_MS);
  });

  it("[TPR-BAT-08] continuations wait at least one minute", () => {
    expect(continuationAt({ finishedSliceAtMs: T0 })).toBe(T0 + MINUTE_MS);
    expect(continuationAt({ finishedSliceAtMs: T0, requestedDelayMs: 5_000 })).toBe(T0 + MINUTE_MS);
    expect(continuationAt({ finishedSliceAtMs: T0, requestedDelayMs: 5 * MINUTE_MS })).toBe(T0 + 5 * MINUTE_MS);
  });
});
