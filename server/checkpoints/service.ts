import "server-only";
// Composition for the thread routes: the process-frozen mode from the
// configured environment, our saver on the workspace connection, the one
// accessor, the runtime clock and the runtime's thread locks.
import { AppError } from "@/server/errors";
import type { OpenRuntime } from "@/server/runtime";
import { createCheckpointAccessor, type CheckpointAccessor } from "./accessor";
import { modeFromEnv, resolveModeConfig } from "./mode";
import { admissionHook } from "./cleanup/admission-cleanup";
import type { RunDeps } from "./runs";
import { openSqliteCheckpoints } from "./sqlite-saver";
import type { CheckpointStore } from "./store";

const DEFAULT_TOOL_PAYLOAD_BYTES = 256;
const accessors = new WeakMap<object, { accessor: CheckpointAccessor; store: CheckpointStore }>();

function toolPayloadBytes(env: NodeJS.ProcessEnv): number {
  const n = Number(env.CHECKPOINT_AGENT_TOOL_PAYLOAD_BYTES ?? DEFAULT_TOOL_PAYLOAD_BYTES);
  return Number.isInteger(n) && n >= 0 ? n : DEFAULT_TOOL_PAYLOAD_BYTES;
}

/**
 * Run deps for this request. The configured mode is resolved on every call
 * so a changed configuration answers 503 (restart required) instead of
 * silently using the frozen one.
 */
export function threadService(rt: OpenRuntime, env: NodeJS.ProcessEnv = process.env): RunDeps {
  const { modeFreeze, locks, runHistory, epochs } = rt.checkpoints;
  const config = resolveModeConfig({ freeze: modeFreeze, explicit: modeFromEnv(env) });
  // Agent threads run on SqliteSaver only so far (PostgresSaver is not wired).
  if (!rt.handle) throw new AppError("unsupported_engine", "Agent threads are not available on this database engine yet");
  const sqlite = rt.handle.sqlite;
  let opened = accessors.get(sqlite);
  if (!opened) {
    const { saver, store } = openSqliteCheckpoints({ sqlite, mode: config.mode });
    opened = { accessor: createCheckpointAccessor({ saver, config, epochs }), store };
    accessors.set(sqlite, opened);
  }
  const { accessor, store } = opened;
  return {
    accessor,
    clock: rt.clock,
    newId: rt.ids,
    locks,
    toolPayloadBytes: toolPayloadBytes(env),
    log: rt.log,
    // Bounded retention at admission (checkpoint-retention-contract).
    admit: admissionHook({ store, cache: runHistory, log: rt.log, epochs }),
  };
}
