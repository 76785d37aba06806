// When will the database reach a size the admin picks? A least-squares fit
// of the used bytes over the last 30 days, shared by the server (the API's
// `growth` and `forecast`) and the storage card (which re-forecasts as the
// admin types a size).
//
// Maintenance operations make steps (compaction gives bytes back, a restore
// replaces everything), and a plain line through a step would read a
// compaction as shrinkage. So the fit has one common slope and its own level
// per interval between operations: each maintenance sample starts a new
// interval, the slope comes from the variation inside intervals only, and
// the forecast starts from the newest interval's level.
//
// Used bytes, not the file size, are fitted: SQLite reuses free pages before
// the file grows, so the file reaches a size when the space in use does.
import { GROWTH_WINDOW_DAYS, type Forecast, type GrowthFit, type StorageTrigger } from "./history-api";

export const DAY_MS = 24 * 60 * 60 * 1000;
/** Dates further out than this are not stated. */
export const FORECAST_HORIZON_MS = 10 * 365 * DAY_MS;

export type GrowthPoint = { atMs: number; usedBytes: number; trigger: StorageTrigger };

// Two-sided 95 % quantiles of Student's t by degrees of freedom (few samples
// widen the range honestly instead of pretending to a normal distribution).
const T_975: readonly number[] = [
  12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145, 2.131, 2.12, 2.11, 2.101, 2.093, 2.086, 2.08, 2.074,
  2.069, 2.064, 2.06, 2.056, 2.052, 2.048, 2.045, 2.042,
];

export function tQuantile975(df: number): number {
  if (df < 1) return Number.POSITIVE_INFINITY;
  if (df <= T_975.length) return T_975[Math.floor(df) - 1]!;
  if (df <= 60) return 2.042 - ((df - 30) / 30) * 0.042;
  if (df <= 120) return 2.0 - ((df - 60) / 60) * 0.02;
  return 1.96;
}

type Segment = { t: number[]; y: number[] };

/** Splits the points (oldest first) into intervals; a maintenance sample opens a new one. */
function segmentsOf(points: readonly GrowthPoint[], originMs: number): Segment[] {
  const segments: Segment[] = [];
  for (const point of points) {
    if (segments.length === 0 || point.trigger !== "daily") segments.push({ t: [], y: [] });
    const segment = segments[segments.length - 1]!;
    segment.t.push((point.atMs - originMs) / DAY_MS);
    segment.y.push(point.usedBytes);
  }
  return segments;
}

const mean = (values: readonly number[]) => values.reduce((sum, v) => sum + v, 0) / values.length;

/**
 * The growth fit over the `windowDays` before the newest point. Needs at
 * least one residual degree of freedom (three samples in one interval, for
 * example) and a day of spread inside the intervals.
 */
export function fitGrowth(all: readonly GrowthPoint[], options: { windowDays?: number } = {}): GrowthFit {
  const windowDays = options.windowDays ?? GROWTH_WINDOW_DAYS;
  const sorted = [...all].sort((a, b) => a.atMs - b.atMs);
  const newest = sorted[sorted.length - 1];
  if (!newest) return { state: "insufficient_data", samples: 0, windowDays };
  const points = sorted.filter((p) => p.atMs > newest.atMs - windowDays * DAY_MS);
  const segments = segmentsOf(points, newest.atMs);
  let sxx = 0;
  let sxy = 0;
  for (const { t, y } of segments) {
    const tm = mean(t);
    const ym = mean(y);
    for (let i = 0; i < t.length; i++) {
      sxx += (t[i]! - tm) ** 2;
      sxy += (t[i]! - tm) * (y[i]! - ym);
    }
  }
  const df = points.length - segments.length - 1;
  // Less than a day of spread inside intervals: no rate can be read from it.
  if (df < 1 || sxx < 0.5) return { state: "insufficient_data", samples: points.length, windowDays };
  const slope = sxy / sxx;
  let rss = 0;
  for (const { t, y } of segments) {
    const tm = mean(t);
    const ym = mean(y);
    for (let i = 0; i < t.length; i++) rss += (y[i]! - ym - slope * (t[i]! - tm)) ** 2;
  }
  const standardError = Math.sqrt(rss / df / sxx);
  const margin = tQuantile975(df) * standardError;
  const last = segments[segments.length - 1]!;
  // The newest interval's level at the newest sample (t = 0 there).
  const anchorBytes = mean(last.y) - slope * mean(last.t);
  return {
    state: "fit",
    bytesPerDay: slope,
    standardErrorPerDay: standardError,
    lowBytesPerDay: slope - margin,
    highBytesPerDay: slope + margin,
    anchorAtMs: newest.atMs,
    anchorBytes,
    samples: points.length,
    windowDays,
  };
}

/**
 * When the database reaches `targetBytes`: `reached` when it is that size
 * already (`currentBytes`, on disk), else the date the fitted used bytes get
 * there, with the dates at the 95 % upper and lower rates.
 */
export function forecastReach(fit: GrowthFit, options: { targetBytes: number; currentBytes: number }): Forecast {
  const { targetBytes, currentBytes } = options;
  if (currentBytes >= targetBytes) return { state: "reached", targetBytes };
  if (fit.state !== "fit") return { state: "insufficient_data", targetBytes };
  if (!(fit.bytesPerDay > 0)) return { state: "not_growing", targetBytes };
  const remaining = Math.max(0, targetBytes - fit.anchorBytes);
  const at = (rate: number) => fit.anchorAtMs + (remaining / rate) * DAY_MS;
  const horizon = fit.anchorAtMs + FORECAST_HORIZON_MS;
  const earliestMs = at(fit.highBytesPerDay);
  if (earliestMs > horizon) return { state: "beyond_horizon", targetBytes };
  const latest = fit.lowBytesPerDay > 0 ? at(fit.lowBytesPerDay) : null;
  return {
    state: "reaches",
    targetBytes,
    atMs: Math.round(Math.min(at(fit.bytesPerDay), horizon)),
    earliestMs: Math.round(earliestMs),
    latestMs: latest !== null && latest <= horizon ? Math.round(latest) : null,
  };
}
