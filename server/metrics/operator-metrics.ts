// The Prometheus registry of one runtime (GET /api/v1/metrics). Gauges are
// read at scrape time from durable state (the database file, the settings
// records, the checkpoint tables), so they are right after a restart; the
// pass counters come from the event bus (pass-observer.ts). No label carries
// an id, a title or a path: values are closed vocabularies (labels.ts).
import "server-only";
import { Gauge, Registry } from "prom-client";
import { parseRfc3339 } from "@/lib/time/rfc3339";
import { readCompactionRecord } from "@/server/compaction/policy/record";
import type { EventBus } from "@/server/events/bus";
import type { Stores } from "@/server/stores";
import { safeLabel } from "./labels";
import { observePasses } from "./pass-observer";
import { registerCheckpointMaintenanceMetrics } from "./checkpoint-maintenance-metrics";
import { registerStorageHistoryMetrics } from "./storage-history-metrics";
import type { Clock } from "@/server/clock";

export const METRIC_PREFIX = "workspace_retention_";
const WORKER_STATES = ["stopped", "idle", "queued", "running", "malformed"] as const;

export type MetricsSources = {
  /** The open stores, null while the database is closed (restore) or the engine unsupported. */
  stores(): Stores | null;
  /** The checkpoint channel mode the process runs with, null when unknown. */
  checkpointMode(): string | null;
  /** Whether the compaction worker is started. */
  workerRunning(): boolean;
};

export type OperatorMetrics = {
  /** The bearer token scrapes must present; null turns the endpoint off. */
  readonly token: string | null;
  readonly contentType: string;
  /** The exposition text of every metric, read now. */
  render(): Promise<string>;
  stop(): void;
};

/** Runs a scrape-time read; a closed database (mid-restore) leaves the gauge empty instead of failing the scrape. */
async function tryRead<T>(read: () => T | Promise<T>): Promise<T | null> {
  try {
    return await read();
  } catch {
    return null;
  }
}

export function createOperatorMetrics(options: { token: string | null; bus: EventBus; sources: MetricsSources; clock: Clock }): OperatorMetrics {
  const { sources } = options;
  const registry = new Registry();
  const registers = [registry];
  const p = METRIC_PREFIX;
  const passes = observePasses({ bus: options.bus, registry, prefix: p, store: () => sources.stores()?.compaction ?? null });

  new Gauge({
    name: `${p}database_size_bytes`,
    help: "Bytes the database occupies on disk, write-ahead log included.",
    registers,
    async collect() {
      this.reset();
      const bytes = await tryRead(() => sources.stores()?.maintenance.diskBytes());
      if (bytes != null) this.set(bytes);
    },
  });
  new Gauge({
    name: `${p}database_free_pages`,
    help: "Pages on the database free list (space a VACUUM would return to the file system).",
    registers,
    async collect() {
      this.reset();
      const pages = await tryRead(() => sources.stores()?.maintenance.pageCounts());
      if (pages) this.set(pages.freePages);
    },
  });
  new Gauge({
    name: `${p}database_page_size_bytes`,
    help: "Size of one database page.",
    registers,
    async collect() {
      this.reset();
      const pages = await tryRead(() => sources.stores()?.maintenance.pageCounts());
      if (pages) this.set(pages.pageSize);
    },
  });

  const checkpointGauge = (what: "rows" | "bytes") =>
    new Gauge({
      name: `${p}checkpoint_${what}`,
      help: `Checkpoint ${what === "rows" ? "rows" : "payload bytes"} per table, labelled with the channel mode the process runs with.`,
      labelNames: ["table", "mode"],
      registers,
      async collect() {
        this.reset();
        const usage = await tryRead(() => sources.stores()?.checkpoints.tableUsage());
        if (!usage) return;
        const mode = safeLabel(sources.checkpointMode());
        this.set({ table: "checkpoints", mode }, usage.checkpoints[what]);
        this.set({ table: "writes", mode }, usage.writes[what]);
      },
    });
  checkpointGauge("rows");
  checkpointGauge("bytes");

  const readRecord = async () => {
    const store = sources.stores()?.compaction;
    return store ? tryRead(() => readCompactionRecord(store)) : null;
  };
  new Gauge({
    name: `${p}compaction_worker_state`,
    help: "1 for the state the Messages compaction worker is in (stopped, idle, queued, running, malformed settings).",
    labelNames: ["state"],
    registers,
    async collect() {
      const read = sources.workerRunning() ? await readRecord() : null;
      let state: (typeof WORKER_STATES)[number] = "stopped";
      if (read?.state === "malformed") state = "malformed";
      else if (read) {
        const active = read.record.runtime.activeOperation;
        state = active?.state === "queued" ? "queued" : active?.state === "running" ? "running" : "idle";
      }
      for (const s of WORKER_STATES) this.set({ state: s }, s === state ? 1 : 0);
    },
  });
  new Gauge({
    name: `${p}compaction_last_success_timestamp_seconds`,
    help: "When the latest successful cleanup pass ended (Unix seconds; 0 when none is known).",
    registers,
    async collect() {
      const read = await readRecord();
      const latest = read && read.state !== "malformed" ? read.record.runtime.latestRun : null;
      const stored = latest?.state === "succeeded" && latest.finishedAt ? parseRfc3339(latest.finishedAt) : null;
      const newest = Math.max(stored ?? 0, passes.lastSuccessMs() ?? 0);
      this.set(newest / 1000);
    },
  });
  const lastPassGauge = (name: string, help: string, pick: (op: { changedMessages: number; payloadBytes: number }) => number) =>
    new Gauge({
      name: `${p}${name}`,
      help,
      registers,
      async collect() {
        this.reset();
        const read = await readRecord();
        const latest = read && read.state !== "malformed" ? read.record.runtime.latestRun : null;
        if (latest) this.set(pick(latest));
      },
    });
  lastPassGauge("compaction_last_pass_messages", "Messages the latest ended cleanup pass compacted (from the settings record).", (op) => op.changedMessages);
  lastPassGauge("compaction_last_pass_bytes", "Payload bytes the latest ended cleanup pass removed (from the settings record).", (op) => op.payloadBytes);

  registerStorageHistoryMetrics({ registry, prefix: p, store: () => sources.stores()?.history ?? null, clock: options.clock });
  const checkpointMaintenance = registerCheckpointMaintenanceMetrics({ registry, prefix: p, bus: options.bus, store: () => sources.stores()?.schedule ?? null });

  return {
    token: options.token,
    contentType: registry.contentType,
    render: () => registry.metrics(),
    stop: () => {
      passes.stop();
      checkpointMaintenance.stop();
    },
  };
}
