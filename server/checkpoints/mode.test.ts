import { describe, expect, it } from "vitest";
import { isAppError } from "@/server/errors";
import { ERROR_STATUS } from "@/lib/api/error-codes";
import { agentGraph } from "./agent";
import { createModeFreeze, modeFromEnv, modeKey, parseSnapshotFrequency, resolveModeConfig } from "./mode";
import { agentStateSchema } from "./schema";
import { createCheckpointTestEnv } from "./test-support";

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error("expected a throw");
}

describe("checkpoint channel modes", () => {
  it("[CCM-01] full is the default; delta uses a DeltaChannel for messages", () => {
    expect(resolveModeConfig({ freeze: createModeFreeze(), env: {} })).toEqual({ mode: "full", snapshotFrequency: 10 });
    const env = createCheckpointTestEnv();
    try {
      const { saver } = env.open({ mode: "full", snapshotFrequency: 10 });
      const full = agentGraph({ mode: "full", snapshotFrequency: 10 }, saver);
      const delta = agentGraph({ mode: "delta", snapshotFrequency: 10 }, saver);
      expect(full.channels.messages?.lc_graph_name).toBe("BinaryOperatorAggregate");
      expect(delta.channels.messages?.lc_graph_name).toBe("DeltaChannel");
      expect((delta.channels.messages as unknown as { snapshotFrequency: number }).snapshotFrequency).toBe(10);
      // Other channels do not change with the mode.
      expect(delta.channels.notes?.lc_graph_name).toBe("BinaryOperatorAggregate");
    } finally {
      env.close();
    }
  });

  it("[CCM-02] the mode freezes on first use; a different mode later is a 503 reconfiguration error", () => {
    const freeze = createModeFreeze();
    expect(resolveModeConfig({ freeze, explicit: { mode: "delta" } }).mode).toBe("delta");
    // Without explicit input the frozen value wins over the env default.
    expect(resolveModeConfig({ freeze, env: {} }).mode).toBe("delta");
    const error = thrown(() => resolveModeConfig({ freeze, explicit: { mode: "full" } }));
    expect(isAppError(error) && error.code).toBe("checkpoint_mode_reconfiguration");
    expect(ERROR_STATUS.checkpoint_mode_reconfiguration).toBe(503);
    // The same value again is fine.
    expect(resolveModeConfig({ freeze, explicit: { mode: "delta" } }).mode).toBe("delta");
  });

  it("[CCM-03] snapshot frequency is configurable (default 10), frozen with the mode, non-positive input rejected", () => {
    expect(modeFromEnv({ CHECKPOINT_CHANNEL_MODE: "delta" })).toEqual({ mode: "delta", snapshotFrequency: 10 });
    expect(modeFromEnv({ CHECKPOINT_CHANNEL_MODE: "delta", CHECKPOINT_DELTA_SNAPSHOT_FREQUENCY: "25" }).snapshotFrequency).toBe(25);
    for (const bad of [0, -3, 2.5, "abc", ""]) expect(() => parseSnapshotFrequency(bad)).toThrow(RangeError);
    expect(() => modeFromEnv({ CHECKPOINT_DELTA_SNAPSHOT_FREQUENCY: "0" })).toThrow(RangeError);
    const freeze = createModeFreeze();
    expect(() => resolveModeConfig({ freeze, explicit: { mode: "delta", snapshotFrequency: -1 } })).toThrow(RangeError);
    expect(freeze.frozen).toBeNull();
    resolveModeConfig({ freeze, env: { CHECKPOINT_CHANNEL_MODE: "delta", CHECKPOINT_DELTA_SNAPSHOT_FREQUENCY: "25" } });
    const error = thrown(() => resolveModeConfig({ freeze, explicit: { mode: "delta", snapshotFrequency: 10 } }));
    expect(isAppError(error) && error.code).toBe("checkpoint_mode_reconfiguration");
  });

  it("[CCM-04] the graph cache keys on the resolved snapshot frequency; schemas are built per graph, never shared", () => {
    const a = { mode: "delta" as const, snapshotFrequency: 10 };
    const b = { mode: "delta" as const, snapshotFrequency: 20 };
    expect(modeKey(a)).not.toBe(modeKey(b));
    expect(agentStateSchema(a)).not.toBe(agentStateSchema({ ...a }));
    const env = createCheckpointTestEnv();
    try {
      const { saver } = env.open(a);
      const g10 = agentGraph(a, saver);
      const g20 = agentGraph(b, saver);
      expect(g10).toBe(agentGraph({ ...a }, saver));
      expect((g10.channels.messages as unknown as { snapshotFrequency: number }).snapshotFrequency).toBe(10);
      expect((g20.channels.messages as unknown as { snapshotFrequency: number }).snapshotFrequency).toBe(20);
    } finally {
      env.close();
    }
  });
});
