import { describe, expect, it } from "vitest";
import { yieldAfter } from "../cleanup/yield";
import { batchPauseFromEnv } from "./batch-pause-config";

const quiet = () => {
  const warnings: unknown[] = [];
  return { log: { warn: (...args: unknown[]) => void warnings.push(args) }, warnings };
};

describe("COMPACTION_BATCH_PAUSE_MS", () => {
  it("[TPR-BAT-07] a configured pause is the shortest yield after a batch, above the 100 ms cap too", () => {
    const { log } = quiet();
    const min = batchPauseFromEnv({ COMPACTION_BATCH_PAUSE_MS: "500" }, log);
    expect(min).toBe(500);
    expect(yieldAfter(0, 100, min)).toBe(500);
    expect(yieldAfter(2_000, 100, min)).toBe(500);
    expect(yieldAfter(40, 100, 10)).toBe(40);
    expect(yieldAfter(0, 100)).toBe(1);
  });

  it("unset keeps the pass's own pacing; a bad value is logged by name and ignored", () => {
    const { log, warnings } = quiet();
    expect(batchPauseFromEnv({}, log)).toBeUndefined();
    expect(batchPauseFromEnv({ COMPACTION_BATCH_PAUSE_MS: "0" }, log)).toBe(0);
    for (const bad of ["-1", "1.5", "60001", "ten", "1e3"]) expect(batchPauseFromEnv({ COMPACTION_BATCH_PAUSE_MS: bad }, log)).toBeUndefined();
    expect(warnings).toHaveLength(5);
    expect(JSON.stringify(warnings)).toContain("COMPACTION_BATCH_PAUSE_MS");
  });
});
