import "server-only";
// Composition for the thread routes: the process-frozen mode from the
// configured environment, our saver on the engine's database (SqliteSaver on
// the workspace connection, PostgresSaver on its pool), the runtime's one
// accessor (rt.checkpoints.accessor), its clock and its thread locks.
import { AppError } from "@/server/errors";
import type { OpenRuntime } from "@/server/runtime";
import { createCheckpointAccessor } from "./accessor";
import { modeFromEnv, resolveModeConfig, type ChannelMode } from "./mode";
import { openPgCheckpoints } from "./pg-saver";
import type { StampingSaver } from "./stamping-saver";
import { admissionHook } from "./cleanup/admission-cleanup";
import { storeRetentionEpochs } from "./cleanup/epoch";
import type { RunDeps } from "./runs";
import { openSqliteCheckpoints } from "./sqlite-saver";
import type { CheckpointStore } from "./store";
import { assertThreadNotExpired, expiredThread } from "./schedule/tombstone";

const DEFAULT_TOOL_PAYLOAD_BYTES = 256;

function toolPayloadBytes(env: NodeJS.ProcessEnv): number {
  const n = Number(env.CHECKPOINT_AGENT_TOOL_PAYLOAD_BYTES ?? DEFAULT_TOOL_PAYLOAD_BYTES);
  return Number.isInteger(n) && n >= 0 ? n : DEFAULT_TOOL_PAYLOAD_BYTES;
}

function openSaver(rt: OpenRuntime, mode: ChannelMode): { saver: StampingSaver; store: CheckpointStore } {
  if (rt.handle) return openSqliteCheckpoints({ db: rt.handle, mode });
  const handle = rt.checkpoints.pgSaver;
  if (!rt.postgres || !handle) throw new AppError("unsupported_engine", "Agent threads are not available on this database engine");
  return openPgCheckpoints({ handle, db: rt.postgres, mode });
}

/**
 * Run deps for this request. The configured mode is resolved on every call
 * so a changed configuration answers 503 (restart required) instead of
 * silently using the frozen one.
 */
export function threadService(rt: OpenRuntime, env: NodeJS.ProcessEnv = process.env): RunDeps {
  const { modeFreeze, locks, runHistory } = rt.checkpoints;
  const config = resolveModeConfig({ freeze: modeFreeze, explicit: modeFromEnv(env) });
  // One saver per database: SqliteSaver on the workspace file, or PostgresSaver on the runtime's pool.
  const key: object | undefined = rt.handle ?? rt.postgres ?? undefined;
  if (!key) throw new AppError("unsupported_engine", "Agent threads are not available on this database engine");
  const { accessor, store } = rt.checkpoints.accessor.on(key, () => {
    const { saver, store } = openSaver(rt, config.mode);
    // Reads retry on the thread's retention epoch in the database, bumped by deletions in any process.
    return { accessor: createCheckpointAccessor({ saver, config, epochs: storeRetentionEpochs(store) }), store };
  });
  return {
    accessor,
    clock: rt.clock,
    newId: rt.ids,
    locks,
    toolPayloadBytes: toolPayloadBytes(env),
    log: rt.log,
    store,
    handleTtlDays: rt.checkpoints.handleTtlDays,
    // Bounded retention at admission (checkpoint-retention-contract).
    admit: admissionHook({ store, cache: runHistory, log: rt.log }),
    expired: (threadId) => expiredThread(rt.stores.schedule, threadId),
  };
}

/**
 * The run deps for a request about one existing thread: an expired thread
 * answers 410 thread_expired (never 404) before anything else is read.
 */
export async function liveThreadService(rt: OpenRuntime, threadId: string, env: NodeJS.ProcessEnv = process.env): Promise<RunDeps> {
  await assertThreadNotExpired(rt.stores.schedule, threadId);
  return threadService(rt, env);
}
