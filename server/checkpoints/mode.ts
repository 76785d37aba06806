// Checkpoint channel mode (`full` | `delta`) and delta snapshot frequency.
// Both are frozen on first use per process: the channel table is baked into
// every compiled graph, so switching needs a restart, never a hot change.
import { AppError } from "@/server/errors";

export type ChannelMode = "full" | "delta";
export type ModeConfig = { mode: ChannelMode; snapshotFrequency: number };

export const DEFAULT_MODE: ChannelMode = "full";
export const DEFAULT_SNAPSHOT_FREQUENCY = 10;

/** Holds what the first use froze. Each runtime owns one (server/runtime-checkpoints.ts). */
export type ModeFreeze = { frozen: ModeConfig | null };

export function createModeFreeze(): ModeFreeze {
  return { frozen: null };
}

/** Parses a mode value; anything but `full`/`delta` is a configuration error. */
export function parseMode(value: string): ChannelMode {
  const v = value.trim().toLowerCase();
  if (v === "full" || v === "delta") return v;
  throw new RangeError(`Unknown checkpoint channel mode "${value}" (expected full or delta)`);
}

/** Rejects non-positive and non-integer frequencies (direct input errors). */
export function parseSnapshotFrequency(value: string | number): number {
  const n = typeof value === "number" ? value : Number(value.trim());
  if (!Number.isInteger(n) || n <= 0) {
    throw new RangeError(`Delta snapshot frequency must be a positive integer, got ${String(value)}`);
  }
  return n;
}

type EnvLike = Record<string, string | undefined>;

/** The configured default from the environment (before any freeze). */
export function modeFromEnv(env: EnvLike): ModeConfig {
  const rawMode = env.CHECKPOINT_CHANNEL_MODE;
  const rawFreq = env.CHECKPOINT_DELTA_SNAPSHOT_FREQUENCY;
  return {
    mode: rawMode && rawMode.trim() !== "" ? parseMode(rawMode) : DEFAULT_MODE,
    snapshotFrequency:
      rawFreq && rawFreq.trim() !== "" ? parseSnapshotFrequency(rawFreq) : DEFAULT_SNAPSHOT_FREQUENCY,
  };
}

export type ResolveModeOptions = {
  freeze: ModeFreeze;
  /** Explicit values (e.g. the configured ones) win over the frozen ones. */
  explicit?: Partial<ModeConfig>;
  /** Where the default comes from when nothing is explicit or frozen. */
  env?: EnvLike;
};

function reconfigurationError(frozen: ModeConfig, wanted: ModeConfig): AppError {
  return new AppError(
    "checkpoint_mode_reconfiguration",
    `Checkpoint channel mode is frozen at ${frozen.mode} (snapshot frequency ${frozen.snapshotFrequency}); ` +
      `${wanted.mode} (snapshot frequency ${wanted.snapshotFrequency}) needs a restart`,
  );
}

/**
 * Resolves each field explicit -> frozen -> default (env) and freezes the
 * result on first use. A resolved value that differs from the frozen one
 * raises `checkpoint_mode_reconfiguration` (503).
 */
export function resolveModeConfig(options: ResolveModeOptions): ModeConfig {
  const { freeze, explicit = {} } = options;
  const explicitFrequency =
    explicit.snapshotFrequency === undefined ? undefined : parseSnapshotFrequency(explicit.snapshotFrequency);
  const fallback = freeze.frozen ?? modeFromEnv(options.env ?? {});
  const wanted: ModeConfig = {
    mode: explicit.mode ?? fallback.mode,
    snapshotFrequency: explicitFrequency ?? fallback.snapshotFrequency,
  };
  if (freeze.frozen) {
    if (freeze.frozen.mode !== wanted.mode || freeze.frozen.snapshotFrequency !== wanted.snapshotFrequency) {
      throw reconfigurationError(freeze.frozen, wanted);
    }
    return freeze.frozen;
  }
  freeze.frozen = Object.freeze({ ...wanted });
  return freeze.frozen;
}

/** The cache key every schema/graph cache uses: mode and resolved frequency. */
export function modeKey(config: ModeConfig): string {
  return config.mode === "delta" ? `delta:${config.snapshotFrequency}` : `full:${config.snapshotFrequency}`;
}
