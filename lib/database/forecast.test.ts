import { describe, expect, it } from "vitest";
import type { StorageTrigger } from "./history-api";
import { DAY_MS, FORECAST_HORIZON_MS, fitGrowth, forecastReach, tQuantile975, type GrowthPoint } from "./forecast";

const T0 = Date.UTC(2026, 0, 1);
const GB = 1e9;

/** Daily points y = base + rate * day (+ noise), with maintenance steps where `steps` says. */
function series(options: { days: number; base: number; rate: number; noise?: (day: number) => number; steps?: Record<number, { drop: number; trigger: StorageTrigger }> }): GrowthPoint[] {
  const points: GrowthPoint[] = [];
  let offset = 0;
  for (let day = 0; day < options.days; day++) {
    const step = options.steps?.[day];
    if (step) offset -= step.drop;
    points.push({ atMs: T0 + day * DAY_MS, usedBytes: options.base + offset + options.rate * day + (options.noise?.(day) ?? 0), trigger: step?.trigger ?? "daily" });
  }
  return points;
}

// A deterministic, zero-mean wobble (no random numbers in tests).
const wobble = (amplitude: number) => (day: number) => amplitude * Math.sin(day * 2.399963);

describe("growth fit", () => {
  it("reads the rate of a steady series exactly, with a zero standard error", () => {
    const fit = fitGrowth(series({ days: 30, base: 10 * GB, rate: 0.1 * GB }));
    expect(fit.state).toBe("fit");
    if (fit.state !== "fit") return;
    expect(fit.bytesPerDay).toBeCloseTo(0.1 * GB, 0);
    expect(fit.standardErrorPerDay).toBeLessThan(1);
    expect(fit.anchorBytes).toBeCloseTo(10 * GB + 29 * 0.1 * GB, 0);
    expect(fit.anchorAtMs).toBe(T0 + 29 * DAY_MS);
  });

  it("uses only the last 30 days: an older, faster period does not count", () => {
    const old = series({ days: 60, base: 0, rate: 1 * GB }).slice(0, 30);
    const recent = series({ days: 60, base: 30 * GB - 30 * 0.01 * GB, rate: 0.01 * GB }).slice(30);
    const fit = fitGrowth([...old, ...recent]);
    expect(fit.state === "fit" && fit.bytesPerDay).toBeCloseTo(0.01 * GB, 0);
    expect(fit.state === "fit" && fit.samples).toBe(30);
  });

  it("a compaction's drop is a step, not shrinkage: the growth between operations is what is fitted", () => {
    const points = series({ days: 30, base: 20 * GB, rate: 0.2 * GB, steps: { 10: { drop: 5 * GB, trigger: "compaction" }, 20: { drop: 3 * GB, trigger: "checkpoint_cleanup" } } });
    const fit = fitGrowth(points);
    expect(fit.state).toBe("fit");
    if (fit.state !== "fit") return;
    expect(fit.bytesPerDay).toBeCloseTo(0.2 * GB, 0);
    // The level after the last step, not a line through the drops.
    expect(fit.anchorBytes).toBeCloseTo(20 * GB - 8 * GB + 29 * 0.2 * GB, 0);
    // A naive line through the same points reads far less growth.
    const n = points.length;
    const tm = points.reduce((s, p) => s + p.atMs, 0) / n;
    const ym = points.reduce((s, p) => s + p.usedBytes, 0) / n;
    const naive = points.reduce((s, p) => s + (p.atMs - tm) * (p.usedBytes - ym), 0) / points.reduce((s, p) => s + (p.atMs - tm) ** 2, 0);
    expect(naive * DAY_MS).toBeLessThan(0.1 * GB);
  });

  it("noise widens the 95 % range around the true rate, and the range holds it", () => {
    const fit = fitGrowth(series({ days: 30, base: 5 * GB, rate: 0.05 * GB, noise: wobble(0.3 * GB) }));
    expect(fit.state).toBe("fit");
    if (fit.state !== "fit") return;
    expect(fit.standardErrorPerDay).toBeGreaterThan(0);
    expect(fit.lowBytesPerDay).toBeLessThan(0.05 * GB);
    expect(fit.highBytesPerDay).toBeGreaterThan(0.05 * GB);
    expect(fit.highBytesPerDay - fit.bytesPerDay).toBeCloseTo(tQuantile975(30 - 1 - 1) * fit.standardErrorPerDay, 3);
  });

  it("needs a residual degree of freedom and a day of spread: two samples, or one per interval, are not enough", () => {
    expect(fitGrowth([])).toEqual({ state: "insufficient_data", samples: 0, windowDays: 30 });
    expect(fitGrowth(series({ days: 2, base: GB, rate: GB })).state).toBe("insufficient_data");
    // Three samples, each right after an operation: every interval holds one point.
    const stepped = series({ days: 3, base: GB, rate: GB, steps: { 1: { drop: 1, trigger: "vacuum" }, 2: { drop: 1, trigger: "compaction" } } });
    expect(fitGrowth(stepped).state).toBe("insufficient_data");
    // Three samples within an hour: no day of spread.
    const hour = [0, 1, 2].map((i) => ({ atMs: T0 + i * 20 * 60 * 1000, usedBytes: GB + i, trigger: "daily" as const }));
    expect(fitGrowth(hour).state).toBe("insufficient_data");
    expect(fitGrowth(series({ days: 3, base: GB, rate: GB })).state).toBe("fit");
  });

  it("Student's t quantiles: wide for few samples, 1.96 for many", () => {
    expect(tQuantile975(1)).toBeCloseTo(12.706, 3);
    expect(tQuantile975(10)).toBeCloseTo(2.228, 3);
    expect(tQuantile975(30)).toBeCloseTo(2.042, 3);
    expect(tQuantile975(45)).toBeGreaterThan(2.0);
    expect(tQuantile975(45)).toBeLessThan(2.042);
    expect(tQuantile975(1000)).toBe(1.96);
    expect(tQuantile975(0)).toBe(Number.POSITIVE_INFINITY);
  });
});

describe("forecast", () => {
  const steady = fitGrowth(series({ days: 30, base: 10 * GB, rate: 0.1 * GB }));

  it("states the day the size is reached, with the range from the 95 % rates", () => {
    const forecast = forecastReach(steady, { targetBytes: 20 * GB, currentBytes: 13 * GB });
    expect(forecast.state).toBe("reaches");
    if (forecast.state !== "reaches") return;
    // 12.9 GB used at the newest sample, 0.1 GB a day: 71 days to 20 GB.
    expect((forecast.atMs - (T0 + 29 * DAY_MS)) / DAY_MS).toBeCloseTo(71, 3);
    expect(forecast.earliestMs).toBeLessThanOrEqual(forecast.atMs);
    expect(forecast.latestMs).toBeGreaterThanOrEqual(forecast.atMs);
  });

  it("noisy growth gives a range that brackets the date", () => {
    const fit = fitGrowth(series({ days: 30, base: 5 * GB, rate: 0.05 * GB, noise: wobble(0.3 * GB) }));
    const forecast = forecastReach(fit, { targetBytes: 10 * GB, currentBytes: 7 * GB });
    expect(forecast.state).toBe("reaches");
    if (forecast.state !== "reaches") return;
    expect(forecast.earliestMs).toBeLessThan(forecast.atMs);
    expect(forecast.latestMs === null || forecast.latestMs > forecast.atMs).toBe(true);
  });

  it("says reached when the database is that size already, whatever the fit", () => {
    expect(forecastReach(steady, { targetBytes: 12 * GB, currentBytes: 12 * GB })).toEqual({ state: "reached", targetBytes: 12 * GB });
    expect(forecastReach({ state: "insufficient_data", samples: 1, windowDays: 30 }, { targetBytes: GB, currentBytes: 2 * GB }).state).toBe("reached");
  });

  it("says not growing for a flat or shrinking database, and insufficient data without a fit", () => {
    const flat = fitGrowth(series({ days: 30, base: 10 * GB, rate: 0 }));
    expect(forecastReach(flat, { targetBytes: 20 * GB, currentBytes: 10 * GB }).state).toBe("not_growing");
    const shrinking = fitGrowth(series({ days: 30, base: 10 * GB, rate: -0.01 * GB }));
    expect(forecastReach(shrinking, { targetBytes: 20 * GB, currentBytes: 10 * GB }).state).toBe("not_growing");
    expect(forecastReach({ state: "insufficient_data", samples: 2, windowDays: 30 }, { targetBytes: 20 * GB, currentBytes: 10 * GB }).state).toBe("insufficient_data");
  });

  it("growth so slow even the fastest likely rate takes more than ten years is beyond the horizon", () => {
    const slow = fitGrowth(series({ days: 30, base: 10 * GB, rate: 1000 }));
    expect(forecastReach(slow, { targetBytes: 20 * GB, currentBytes: 10 * GB }).state).toBe("beyond_horizon");
    expect(FORECAST_HORIZON_MS / DAY_MS).toBe(3650);
  });

  it("growth not distinguishable from flat has no latest date (it may never get there)", () => {
    // A tiny upward rate under large noise: the lower 95 % rate is negative.
    const fit = fitGrowth(series({ days: 30, base: 10 * GB, rate: 0.02 * GB, noise: wobble(2 * GB) }));
    expect(fit.state === "fit" && fit.lowBytesPerDay).toBeLessThan(0);
    const forecast = forecastReach(fit, { targetBytes: 12 * GB, currentBytes: 10.5 * GB });
    expect(forecast.state === "reaches" && forecast.latestMs).toBeNull();
  });
});
