// The demo's storage history: 120 days before the first real sample, made up
// (deterministically, from a seed) so the storage chart of a fresh demo has
// something to show: steady growth with day-to-day noise, two Messages
// compactions, a checkpoint cleanup followed by a VACUUM. It ends where the
// real database is, area by area, so the first real sample continues it.
import type { SampleInsert } from "./store";
import { areaOf } from "./areas";
import { dailyKey, operationKey } from "./sample";

const DAY_MS = 24 * 60 * 60 * 1000;
/** Daily samples at 00:05 UTC, maintenance in the night's window at 02:30. */
const DAILY_AT_MS = 5 * 60 * 1000;
const MAINTENANCE_AT_MS = 150 * 60 * 1000;

type Areas = { messages: number; checkpoints: number; other: number };
type Event = { day: number; trigger: "compaction" | "checkpoint_cleanup" | "vacuum"; share: number };

/** Days before the first real sample (negative), and what each operation removed from its area. */
const EVENTS: Event[] = [
  { day: -96, trigger: "compaction", share: 0.45 },
  { day: -61, trigger: "checkpoint_cleanup", share: 0.35 },
  { day: -60, trigger: "vacuum", share: 0 },
  { day: -22, trigger: "compaction", share: 0.3 },
];

/** A small deterministic generator (mulberry32): the same seed, the same history. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Point = { atMs: number; trigger: SampleInsert["trigger"]; areas: Areas; free: number; reclaimed: number | null };

/** The made-up days from `start` (bytes per area on the first day), free pages tracked in the same bytes. */
function simulate(start: Areas, days: number, startDay: number, seed: number): Point[] {
  const next = random(seed);
  // Growth per day by area (messages grow fastest, checkpoints next), with noise.
  const rates: Areas = { messages: 0.012, checkpoints: 0.009, other: 0.002 };
  let areas: Areas = { ...start };
  let free = 0;
  const points: Point[] = [];
  for (let d = 0; d < days; d++) {
    const dayStart = (startDay + d) * DAY_MS;
    const grown: Areas = { messages: 0, checkpoints: 0, other: 0 };
    for (const area of ["messages", "checkpoints", "other"] as const) grown[area] = areas[area] * (1 + rates[area] * (0.4 + 1.2 * next()));
    // New rows fill free pages before the file grows.
    free = Math.max(0, free - (sum(grown) - sum(areas)));
    areas = grown;
    points.push({ atMs: dayStart + DAILY_AT_MS, trigger: "daily", areas: { ...areas }, free, reclaimed: null });
    for (const event of EVENTS.filter((e) => e.day === d - days)) {
      let reclaimed = free;
      if (event.trigger === "vacuum") free = 0;
      else {
        const area = event.trigger === "compaction" ? "messages" : "checkpoints";
        reclaimed = areas[area] * event.share;
        areas = { ...areas, [area]: areas[area] - reclaimed };
        free += reclaimed;
      }
      points.push({ atMs: dayStart + MAINTENANCE_AT_MS, trigger: event.trigger, areas: { ...areas }, free, reclaimed });
    }
  }
  return points;
}

const sum = (areas: Areas) => areas.messages + areas.checkpoints + areas.other;

/**
 * `real` is the first real sample (taken now); the made-up ones precede it,
 * `days` daily samples and the operations between them, oldest first.
 */
export function demoHistory(options: { real: SampleInsert; days?: number; seed: number }): SampleInsert[] {
  const { real, seed } = options;
  const days = options.days ?? 120;
  const startDay = Math.floor(real.atMs / DAY_MS) - days;
  // Growth is multiplicative: a run from 1 byte per area says how far each
  // area grows, so a second run from the right start ends at the real sizes.
  const unit = simulate({ messages: 1, checkpoints: 1, other: 1 }, days, startDay, seed);
  const end = unit[unit.length - 1]!.areas;
  const floor = (bytes: number) => Math.max(bytes, 4096);
  const points = simulate(
    { messages: floor(real.messagesBytes) / end.messages, checkpoints: floor(real.checkpointsBytes) / end.checkpoints, other: floor(real.otherBytes) / end.other },
    days,
    startDay,
    seed,
  );
  const realTables = JSON.parse(real.tables) as [string, number, number][];
  return points.map((point) => {
    const messagesBytes = Math.round(point.areas.messages);
    const checkpointsBytes = Math.round(point.areas.checkpoints);
    const otherBytes = Math.round(point.areas.other);
    const usedBytes = messagesBytes + checkpointsBytes + otherBytes;
    const freeBytes = Math.round(point.free);
    // Each table keeps its share of its area.
    const ratio = (name: string) => {
      const area = areaOf(name);
      const now = area === "messages" ? real.messagesBytes : area === "checkpoints" ? real.checkpointsBytes : real.otherBytes;
      return (area === "messages" ? messagesBytes : area === "checkpoints" ? checkpointsBytes : otherBytes) / (now || 1);
    };
    const tables = realTables.map(([name, rows, bytes]) => [name, Math.round(rows * ratio(name)), Math.round(bytes * ratio(name))]);
    const id = `demo-${point.trigger}-${new Date(point.atMs).toISOString().slice(0, 10)}`;
    return {
      atMs: point.atMs,
      sampleKey: point.trigger === "daily" ? dailyKey(point.atMs) : operationKey(point.trigger, id),
      trigger: point.trigger,
      operationId: point.trigger === "daily" ? null : id,
      method: real.method,
      totalBytes: usedBytes + freeBytes,
      usedBytes,
      freeBytes,
      messagesBytes,
      checkpointsBytes,
      otherBytes,
      reclaimedBytes: point.reclaimed === null ? null : Math.round(point.reclaimed),
      diskFreeBytes: real.diskFreeBytes,
      tables: JSON.stringify(tables),
    };
  });
}
