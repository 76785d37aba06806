// Feeds the pass counters from the event bus: when a cleanup pass ends, its
// final numbers are read back from the settings record (the durable copy the
// worker wrote before publishing), so a pass resumed after a restart is
// counted once, with everything it committed.
import "server-only";
import { AsyncResource } from "node:async_hooks";
import { Counter, Histogram, type Registry } from "prom-client";
import type { CompactionOperation } from "@/lib/compaction/policy";
import type { SystemEvent } from "@/lib/events/api";
import { parseRfc3339 } from "@/lib/time/rfc3339";
import { readCompactionRecord } from "@/server/compaction/policy/record";
import type { CompactionStore } from "@/server/compaction/store";
import type { EventBus } from "@/server/events/bus";
import { safeLabel } from "./labels";

const TERMINAL = new Set(["succeeded", "partial", "failed", "cancelled"]);
/** Ids of ended passes already counted (an orphan end can be published twice). */
const REMEMBERED_PASSES = 64;
/** From a tiny test database to a multi-hour first pass over a large one. */
const DURATION_BUCKETS = [1, 5, 15, 60, 300, 900, 1800, 3600, 7200, 14400];

export type PassObserver = {
  /** Epoch ms of the newest pass this process saw succeed, or null. */
  lastSuccessMs(): number | null;
  stop(): void;
};

type PassMetrics = {
  messages: Counter;
  bytes: Counter;
  duration: Histogram;
  failures: Counter<"code">;
  skipped: Counter<"reason">;
};

function createPassMetrics(registry: Registry, prefix: string): PassMetrics {
  const registers = [registry];
  return {
    messages: new Counter({ name: `${prefix}messages_compacted_total`, help: "Messages whose tool payload cleanup passes removed (since process start).", registers }),
    bytes: new Counter({ name: `${prefix}payload_bytes_reclaimed_total`, help: "Payload bytes cleanup passes removed from messages (since process start).", registers }),
    duration: new Histogram({
      name: `${prefix}compaction_pass_duration_seconds`,
      help: "Wall time of ended cleanup passes, from start to end (continuations included).",
      buckets: DURATION_BUCKETS,
      registers,
    }),
    failures: new Counter({
      name: `${prefix}compaction_batch_failures_total`,
      help: "Cleanup passes that ended failed or partial, by error code.",
      labelNames: ["code"],
      registers,
    }),
    skipped: new Counter({
      name: `${prefix}compaction_skipped_total`,
      help: "Tasks or messages ended cleanup passes skipped, by reason.",
      labelNames: ["reason"],
      registers,
    }),
  };
}

function endedPass(event: SystemEvent): string | null {
  if (event.type !== "operation" || event.kind !== "cleanup") return null;
  return TERMINAL.has(event.state) ? event.operationId : null;
}

export function observePasses(options: {
  bus: EventBus;
  registry: Registry;
  prefix: string;
  /** The current compaction store (null while the database is closed or unsupported). */
  store: () => CompactionStore | null;
}): PassObserver {
  const metrics = createPassMetrics(options.registry, options.prefix);
  const counted: string[] = [];
  let lastSuccessMs: number | null = null;

  const count = (operation: CompactionOperation) => {
    metrics.messages.inc(operation.changedMessages);
    metrics.bytes.inc(operation.payloadBytes);
    const started = operation.startedAt ? parseRfc3339(operation.startedAt) : null;
    const finished = operation.finishedAt ? parseRfc3339(operation.finishedAt) : null;
    if (started !== null && finished !== null && finished >= started) metrics.duration.observe((finished - started) / 1000);
    if ((operation.state === "failed" || operation.state === "partial") && operation.errorCode) {
      metrics.failures.inc({ code: safeLabel(operation.errorCode) });
    }
    for (const [reason, n] of Object.entries(operation.skipped)) if (n > 0) metrics.skipped.inc({ reason: safeLabel(reason) }, n);
    if (operation.state === "succeeded" && finished !== null) lastSuccessMs = Math.max(lastSuccessMs ?? 0, finished);
  };

  const looking = new Set<string>();
  // Bound to the context the observer starts in: an event published inside
  // a transaction must not have the record read in it.
  const look = AsyncResource.bind(async (operationId: string, store: CompactionStore) => {
    looking.add(operationId);
    try {
      const read = await readCompactionRecord(store);
      const latest = read.state === "malformed" ? null : read.record.runtime.latestRun;
      if (latest?.id !== operationId || counted.includes(operationId)) return;
      counted.push(operationId);
      if (counted.length > REMEMBERED_PASSES) counted.shift();
      count(latest);
    } catch {
      // The database closed meanwhile: the pass is not counted, as when the store is gone.
    } finally {
      looking.delete(operationId);
    }
  });
  const unsubscribe = options.bus.subscribe((event) => {
    const operationId = endedPass(event);
    if (!operationId || counted.includes(operationId) || looking.has(operationId)) return;
    const store = options.store();
    if (!store) return;
    void look(operationId, store);
  });

  return { lastSuccessMs: () => lastSuccessMs, stop: unsubscribe };
}
