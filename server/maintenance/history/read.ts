import "server-only";
// GET /api/v1/system/database/history: the samples of the last N days,
// the newest with its tables, the growth fit over the last 30 days and,
// when asked, the forecast for a size.
import { GROWTH_WINDOW_DAYS, STORAGE_HISTORY_RETENTION_DAYS, type HistoryQuery, type StorageSample, type SupportedHistory } from "@/lib/database/history-api";
import { DAY_MS, fitGrowth, forecastReach } from "@/lib/database/forecast";
import type { Clock } from "@/server/clock";
import { toWireSample } from "./row";
import type { HistoryStore } from "./store";

export async function readStorageHistory(options: { store: HistoryStore; clock: Clock; engine: "sqlite" | "postgres"; query: HistoryQuery }): Promise<SupportedHistory> {
  const { store, query } = options;
  const nowMs = options.clock.now();
  // The fit needs its 30 days even when fewer are shown.
  const fromMs = nowMs - Math.max(query.days, GROWTH_WINDOW_DAYS) * DAY_MS;
  const rows = await store.listSince({ fromMs });
  const withTables = query.detail === "tables";
  let malformed = 0;
  const all: StorageSample[] = [];
  for (const row of rows) {
    const sample = toWireSample(row, { withTables });
    if (sample) all.push(sample);
    else malformed += 1;
  }
  const latestRow = await store.latest();
  const latest = latestRow ? toWireSample(latestRow, { withTables: true }) : null;
  const growth = fitGrowth(all.filter((s) => s.atMs >= nowMs - GROWTH_WINDOW_DAYS * DAY_MS));
  const shownFrom = nowMs - query.days * DAY_MS;
  return {
    capability: "supported",
    engine: options.engine,
    retentionDays: STORAGE_HISTORY_RETENTION_DAYS,
    days: query.days,
    samples: all.filter((s) => s.atMs >= shownFrom),
    latest,
    malformedSamples: malformed,
    growth,
    ...(query.targetBytes !== undefined ? { forecast: forecastReach(growth, { targetBytes: query.targetBytes, currentBytes: latest?.totalBytes ?? 0 }) } : {}),
  };
}
