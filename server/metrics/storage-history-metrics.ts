// The storage history as Prometheus gauges, read at scrape time from the
// newest stored sample (so they are right after a restart, and the same on
// every instance): bytes by area and by table, rows by table, when it was
// taken, and the growth rate the storage card forecasts with. Table names
// pass through safeLabel: a name outside our closed shape counts as "other".
import "server-only";
import { Gauge, type Registry } from "prom-client";
import { GROWTH_WINDOW_DAYS, type GrowthFit, type StorageSample } from "@/lib/database/history-api";
import { DAY_MS, fitGrowth } from "@/lib/database/forecast";
import type { Clock } from "@/server/clock";
import { toWireSample } from "@/server/maintenance/history/row";
import type { HistoryStore } from "@/server/maintenance/history/store";
import { safeLabel } from "./labels";

async function latestSample(store: HistoryStore | null): Promise<StorageSample | null> {
  if (!store) return null;
  try {
    const row = await store.latest();
    return row ? toWireSample(row, { withTables: true }) : null;
  } catch {
    return null;
  }
}

/** Sums by label: two names folded into "other" add up instead of overwriting each other. */
function byLabel(sample: StorageSample, pick: (table: { rows: number; bytes: number }) => number): Map<string, number> {
  const sums = new Map<string, number>();
  for (const table of sample.tables ?? []) sums.set(safeLabel(table.name), (sums.get(safeLabel(table.name)) ?? 0) + pick(table));
  return sums;
}

export function registerStorageHistoryMetrics(options: { registry: Registry; prefix: string; store: () => HistoryStore | null; clock: Clock }): void {
  const { prefix: p, store } = options;
  const registers = [options.registry];
  new Gauge({
    name: `${p}storage_area_bytes`,
    help: "Bytes by area at the newest storage-history sample: messages, checkpoints, other (in use) and free (pages SQLite reuses before the file grows).",
    labelNames: ["area"],
    registers,
    async collect() {
      this.reset();
      const sample = await latestSample(store());
      if (!sample) return;
      for (const [area, bytes] of Object.entries(sample.areas)) this.set({ area }, bytes);
      this.set({ area: "free" }, sample.freeBytes);
    },
  });
  const tableGauge = (what: "rows" | "bytes") =>
    new Gauge({
      name: `${p}storage_table_${what}`,
      help: `${what === "rows" ? "Rows" : "Bytes (indexes included)"} per table at the newest storage-history sample.`,
      labelNames: ["table"],
      registers,
      async collect() {
        this.reset();
        const sample = await latestSample(store());
        if (!sample) return;
        for (const [table, value] of byLabel(sample, (t) => t[what])) this.set({ table }, value);
      },
    });
  tableGauge("rows");
  tableGauge("bytes");
  new Gauge({
    name: `${p}storage_last_sample_timestamp_seconds`,
    help: "When the newest storage-history sample was taken (Unix seconds; 0 when there is none).",
    registers,
    async collect() {
      const sample = await latestSample(store());
      this.set(sample ? sample.atMs / 1000 : 0);
    },
  });
  // Each gauge fits on its own (a few dozen small rows): concurrent scrapes share nothing.
  new Gauge({
    name: `${p}storage_growth_fitted`,
    help: `1 when the last ${GROWTH_WINDOW_DAYS} days hold enough samples for the growth fit, else 0.`,
    registers,
    async collect() {
      this.set((await fitRecent())?.state === "fit" ? 1 : 0);
    },
  });
  new Gauge({
    name: `${p}storage_growth_bytes_per_day`,
    help: `Growth of the space in use per day, fitted over the last ${GROWTH_WINDOW_DAYS} days of samples with maintenance steps left out (0 when storage_growth_fitted is 0).`,
    registers,
    async collect() {
      const fit = await fitRecent();
      this.set(fit?.state === "fit" ? fit.bytesPerDay : 0);
    },
  });

  async function fitRecent(): Promise<GrowthFit | null> {
    const history = store();
    if (!history) return null;
    try {
      const rows = await history.listSince({ fromMs: options.clock.now() - GROWTH_WINDOW_DAYS * DAY_MS });
      return fitGrowth(rows.map((row) => toWireSample(row, { withTables: false })).filter((s): s is StorageSample => s !== null));
    } catch {
      // A closed database (mid-restore) gives no fit.
      return null;
    }
  }
}
