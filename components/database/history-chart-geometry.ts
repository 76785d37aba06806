// Pure geometry of the storage chart: scales, the stacked areas (messages,
// checkpoints, other: the space in use), the on-disk line above them, axis
// ticks and the maintenance markers. No React, so it is tested apart.
import { STORAGE_AREAS, type StorageArea, type StorageSample, type StorageTrigger } from "@/lib/database/history-api";

export type ChartBox = { width: number; height: number; left: number; right: number; top: number; bottom: number };
export type Tick = { value: number; position: number };
export type Marker = { x: number; sample: StorageSample; trigger: Exclude<StorageTrigger, "daily"> };
export type ChartGeometry = {
  /** One closed path per area, bottom band first. */
  areas: { area: StorageArea; path: string }[];
  /** The file on disk (free pages and the WAL included). */
  totalPath: string;
  yTicks: Tick[];
  xTicks: Tick[];
  markers: Marker[];
  /** x of each sample, in sample order (the keyboard cursor and hover use it). */
  xs: number[];
};

/** The next "nice" number at or above `value` (1, 2, 2.5, 5 times a power of ten). */
export function niceCeiling(value: number): number {
  if (!(value > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 2.5, 5, 10]) if (step * power >= value) return step * power;
  return 10 * power;
}

/** Evenly spaced y ticks from 0 to the first nice step at or above `max` (about `count` steps). */
export function yTicksFor(max: number, count = 4): number[] {
  const step = niceCeiling(Math.max(max, 1) / count);
  const steps = Math.max(1, Math.ceil(max / step - 1e-9));
  return Array.from({ length: steps + 1 }, (_, i) => i * step);
}

const round = (value: number) => Math.round(value * 10) / 10;

export function chartGeometry(samples: readonly StorageSample[], box: ChartBox, options: { xTickCount?: number } = {}): ChartGeometry {
  const innerWidth = Math.max(1, box.width - box.left - box.right);
  const innerHeight = Math.max(1, box.height - box.top - box.bottom);
  const bottomY = box.top + innerHeight;
  const empty = { areas: STORAGE_AREAS.map((area) => ({ area, path: "" })), totalPath: "", yTicks: [], xTicks: [], markers: [], xs: [] };
  if (samples.length === 0) return empty;
  const first = samples[0]!.atMs;
  const last = samples[samples.length - 1]!.atMs;
  const span = last - first;
  const x = (atMs: number) => round(span > 0 ? box.left + ((atMs - first) / span) * innerWidth : box.left + innerWidth / 2);
  const ticks = yTicksFor(Math.max(1, ...samples.map((s) => Math.max(s.totalBytes, s.usedBytes))));
  const top = ticks[ticks.length - 1]!;
  const y = (bytes: number) => round(bottomY - (bytes / top) * innerHeight);
  const xs = samples.map((s) => x(s.atMs));

  // Cumulative tops of the bands: messages, then checkpoints on it, then other.
  const stacks = samples.map((s) => {
    let sum = 0;
    return STORAGE_AREAS.map((area) => (sum += s.areas[area]));
  });
  const line = (points: [number, number][]) => points.map(([px, py], i) => `${i === 0 ? "M" : "L"}${px} ${py}`).join(" ");
  const areas = STORAGE_AREAS.map((area, band) => {
    const upper = samples.map((_, i) => [xs[i]!, y(stacks[i]![band]!)] as [number, number]);
    const lower = samples.map((_, i) => [xs[i]!, band === 0 ? bottomY : y(stacks[i]![band - 1]!)] as [number, number]).reverse();
    // A single sample is drawn as a thin column so it is visible at all.
    if (samples.length === 1) {
      const [px] = upper[0]!;
      upper.unshift([px - 2, upper[0]![1]]);
      upper.push([px + 2, upper[upper.length - 1]![1]]);
      lower.unshift([px + 2, lower[0]![1]]);
      lower.push([px - 2, lower[lower.length - 1]![1]]);
    }
    return { area, path: `${line([...upper, ...lower])} Z` };
  });
  const totalPath = line(samples.map((s, i) => [xs[i]!, y(s.totalBytes)]));
  const xTickCount = Math.max(2, options.xTickCount ?? 5);
  const xTicks: Tick[] =
    span > 0 ? Array.from({ length: xTickCount }, (_, i) => first + (span * i) / (xTickCount - 1)).map((value) => ({ value, position: x(value) })) : [{ value: first, position: x(first) }];
  const markers: Marker[] = samples.flatMap((sample, i) => (sample.trigger === "daily" ? [] : [{ x: xs[i]!, sample, trigger: sample.trigger }]));
  return { areas, totalPath, yTicks: ticks.map((value) => ({ value, position: y(value) })), xTicks, markers, xs };
}
