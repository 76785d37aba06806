import { describe, expect, it } from "vitest";
import { estimateFullBytes, pairDigestFailures, planPairs } from "./checkpoint-plan";

const base = { payloadBytes: 128, frequencies: [10, 50], maxFullBytes: 1024 ** 3, allowLarge: false };

describe("checkpoint benchmark plan", () => {
  it("[CCM-19] every (repetition, turns) group has both modes and the first mode alternates across groups and repetitions", () => {
    const pairs = planPairs({ ...base, turns: [10, 20, 30], repetitions: 2 });
    expect(pairs).toHaveLength(6);
    for (const p of pairs) {
      expect(p.cases.filter((c) => c.mode === "full")).toHaveLength(1);
      expect(p.cases.filter((c) => c.mode === "delta").map((c) => c.snapshotFrequency)).toEqual([10, 50]);
    }
    expect(pairs.map((p) => p.cases[0]!.mode)).toEqual(["full", "delta", "full", "delta", "full", "delta"]);
  });

  it("[CCM-19] the size cap skips both modes of an oversized pair unless large cases are allowed", () => {
    expect(estimateFullBytes(1000, 128)).toBeGreaterThan(1024 ** 3);
    const capped = planPairs({ ...base, turns: [100, 1000], repetitions: 1 });
    expect(capped.map((p) => p.skipped)).toEqual([null, "size_cap"]);
    expect(capped[1]!.cases).toHaveLength(3);
    expect(planPairs({ ...base, turns: [1000], repetitions: 1, allowLarge: true })[0]!.skipped).toBeNull();
    // Delta-only diagnostics are not capped by the full-payload estimate.
    const deltaOnly = planPairs({ ...base, turns: [1000], repetitions: 1, modes: ["delta"] });
    expect(deltaOnly[0]!.skipped).toBeNull();
    expect(deltaOnly[0]!.cases.map((c) => c.mode)).toEqual(["delta", "delta"]);
  });

  it("[CCM-19] a delta digest that differs from full fails both rows of the pair", () => {
    expect(pairDigestFailures([{ mode: "full", ok: true, digest: "a" }, { mode: "delta", ok: true, digest: "a" }])).toEqual([false, false]);
    expect(
      pairDigestFailures([
        { mode: "delta", ok: true, digest: "b" },
        { mode: "delta", ok: true, digest: "a" },
        { mode: "full", ok: true, digest: "a" },
      ]),
    ).toEqual([true, false, true]);
  });
});
