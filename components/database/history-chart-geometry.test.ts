import { describe, expect, it } from "vitest";
import type { StorageSample } from "@/lib/database/history-api";
import { chartGeometry, niceCeiling, yTicksFor } from "./history-chart-geometry";

const DAY = 86_400_000;
const BOX = { width: 500, height: 200, left: 50, right: 10, top: 10, bottom: 30 };

function sample(day: number, messages: number, checkpoints: number, other: number, free: number, trigger: StorageSample["trigger"] = "daily"): StorageSample {
  const used = messages + checkpoints + other;
  return {
    id: day + 1,
    at: new Date(day * DAY).toISOString(),
    atMs: day * DAY,
    trigger,
    operationId: trigger === "daily" ? null : `op-${day}`,
    method: "dbstat",
    totalBytes: used + free,
    usedBytes: used,
    freeBytes: free,
    areas: { messages, checkpoints, other },
    reclaimedBytes: trigger === "daily" ? null : 10,
    diskFreeBytes: null,
  };
}

describe("storage chart geometry", () => {
  it("rounds axis maxima up to 1, 2, 2.5 or 5 times a power of ten", () => {
    expect([0, 0.7, 1, 1.2, 2.2, 3, 7, 12, 4_100_000_000].map(niceCeiling)).toEqual([1, 1, 1, 2, 2.5, 5, 10, 20, 5_000_000_000]);
    expect(yTicksFor(4_100_000_000)).toEqual([0, 2_000_000_000, 4_000_000_000, 6_000_000_000]);
    expect(yTicksFor(90)).toEqual([0, 25, 50, 75, 100]);
    // Just above a round size: one more step, not the next power.
    expect(yTicksFor(1_050_000)).toEqual([0, 500_000, 1_000_000, 1_500_000]);
    expect(yTicksFor(100)).toEqual([0, 25, 50, 75, 100]);
  });

  it("stacks messages, checkpoints and other from the bottom, with the on-disk line above them", () => {
    const samples = [sample(0, 40, 20, 20, 20), sample(10, 60, 20, 20, 0)];
    const g = chartGeometry(samples, BOX);
    // Inner box: x 50..490, y 10..170; the y axis tops out at 100.
    expect(g.xs).toEqual([50, 490]);
    expect(g.areas.map((a) => a.area)).toEqual(["messages", "checkpoints", "other"]);
    expect(g.areas[0]!.path).toBe("M50 106 L490 74 L490 170 L50 170 Z");
    expect(g.areas[1]!.path).toBe("M50 74 L490 42 L490 74 L50 106 Z");
    expect(g.areas[2]!.path).toBe("M50 42 L490 10 L490 42 L50 74 Z");
    expect(g.totalPath).toBe("M50 10 L490 10");
    expect(g.yTicks.map((t) => [t.value, t.position])).toEqual([[0, 170], [25, 130], [50, 90], [75, 50], [100, 10]]);
    expect(g.xTicks.map((t) => t.position)).toEqual([50, 160, 270, 380, 490]);
  });

  it("marks each maintenance sample where it was taken, never a daily one", () => {
    const samples = [sample(0, 50, 0, 0, 0), sample(1, 20, 0, 0, 30, "compaction"), sample(2, 22, 0, 0, 28), sample(4, 22, 0, 0, 0, "vacuum")];
    const g = chartGeometry(samples, BOX);
    expect(g.markers.map((m) => [m.trigger, m.x])).toEqual([["compaction", 160], ["vacuum", 490]]);
  });

  it("draws a single sample as a visible column, and nothing for none", () => {
    const one = chartGeometry([sample(3, 10, 10, 10, 0)], BOX);
    expect(one.xs).toEqual([270]);
    expect(one.areas[0]!.path.split("L").length).toBeGreaterThan(3);
    expect(one.xTicks).toHaveLength(1);
    const none = chartGeometry([], BOX);
    expect(none.totalPath).toBe("");
    expect(none.markers).toEqual([]);
  });
});
