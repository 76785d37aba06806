// Metrics of scheduled checkpoint maintenance, beside compaction's: gauges
// read at scrape time from the two policy records and the tombstones
// (right after a restart), counters of ended operations fed by the bus's
// maintenance_finished events (since the process started). Labels are the
// closed words of the records: kinds, triggers, states.
import "server-only";
import { Counter, Gauge, type Registry } from "prom-client";
import { parseRfc3339 } from "@/lib/time/rfc3339";
import type { EventBus } from "@/server/events/bus";
import { expiryArmed } from "@/server/checkpoints/schedule/expiry-policy";
import { readRecord } from "@/server/checkpoints/schedule/records";
import type { CheckpointScheduleStore } from "@/server/checkpoints/schedule/store";
import { safeLabel } from "./labels";

const KINDS = ["checkpoint_cleanup", "thread_expiry"] as const;

async function tryRead<T>(read: () => Promise<T>): Promise<T | null> {
  try {
    return await read();
  } catch {
    return null;
  }
}

export function registerCheckpointMaintenanceMetrics(options: { registry: Registry; prefix: string; bus: EventBus; store: () => CheckpointScheduleStore | null }): { stop(): void } {
  const { registry, prefix: p, bus, store } = options;
  const registers = [registry];
  const latest = async <K extends (typeof KINDS)[number]>(kind: K) => {
    const s = store();
    const read = s ? await tryRead(() => readRecord(s, kind)) : null;
    return read && read.state !== "malformed" ? read.record : null;
  };

  new Gauge({
    name: `${p}checkpoint_maintenance_enabled`,
    help: "1 when the policy is on: the daily checkpoint cleanup enabled, or thread expiry armed (enabled with a ready backup or skip choice).",
    labelNames: ["kind"],
    registers,
    async collect() {
      this.reset();
      const cleanup = await latest("checkpoint_cleanup");
      if (cleanup) this.set({ kind: "checkpoint_cleanup" }, cleanup.policy.enabled ? 1 : 0);
      // Thread expiry deletes only once armed: enabled with its backup still running (or failed) is not on yet.
      const expiry = await latest("thread_expiry");
      if (expiry) this.set({ kind: "thread_expiry" }, expiryArmed(expiry) ? 1 : 0);
    },
  });
  new Gauge({
    name: `${p}checkpoint_maintenance_last_success_timestamp_seconds`,
    help: "When the latest successful daily checkpoint cleanup or thread expiry pass ended (Unix seconds; 0 when none is known).",
    labelNames: ["kind"],
    registers,
    async collect() {
      this.reset();
      for (const kind of KINDS) {
        const run = (await latest(kind))?.runtime.latestRun;
        const at = run?.state === "succeeded" && run.finishedAt ? (parseRfc3339(run.finishedAt) ?? 0) : 0;
        this.set({ kind }, at / 1000);
      }
    },
  });
  const lastRun = (what: "threads" | "bytes", help: string) =>
    new Gauge({
      name: `${p}checkpoint_maintenance_last_run_${what}`,
      help,
      labelNames: ["kind"],
      registers,
      async collect() {
        this.reset();
        for (const kind of KINDS) {
          const run = (await latest(kind))?.runtime.latestRun;
          if (run) this.set({ kind }, run[what]);
        }
      },
    });
  lastRun("threads", "Threads the latest ended run changed (cleanup) or deleted (thread expiry), from its record.");
  lastRun("bytes", "Payload bytes the latest ended run removed, from its record.");
  new Gauge({
    name: `${p}expired_threads`,
    help: "Threads thread expiry has deleted (their tombstones).",
    registers,
    async collect() {
      this.reset();
      const s = store();
      const n = s ? await tryRead(() => s.countTombstones()) : null;
      if (n !== null) this.set(n);
    },
  });

  const runs = new Counter({
    name: `${p}checkpoint_maintenance_runs_total`,
    help: "Ended checkpoint cleanups and thread expiry passes, by kind, trigger and state (since process start).",
    labelNames: ["kind", "trigger", "state"],
    registers,
  });
  const removedBytes = new Counter({ name: `${p}checkpoint_maintenance_removed_bytes_total`, help: "Payload bytes checkpoint cleanups and thread expiry removed, by kind (since process start).", labelNames: ["kind"], registers });
  const expired = new Counter({ name: `${p}threads_expired_total`, help: "Threads thread expiry deleted (since process start).", registers });
  const stop = bus.subscribe((event) => {
    if (event.type !== "maintenance_finished") return;
    const kind = safeLabel(event.kind);
    runs.inc({ kind, trigger: safeLabel(event.trigger), state: safeLabel(event.state) });
    if (event.removedBytes > 0) removedBytes.inc({ kind }, event.removedBytes);
    if (event.kind === "thread_expiry" && event.threads) expired.inc(event.threads);
  });
  return { stop };
}
