// The run history's order survives a store that sorts object keys
// (PostgreSQL's jsonb): the explicit run_order wins over the maps' key order.
import { describe, expect, it } from "vitest";
import { cumulativeFrom, runOrderOf } from "../durations";
import { parseRunHistoryText } from "./run-history";

// Key order as jsonb would give it back: shorter keys first, then bytewise.
const SORTED_DURATIONS = JSON.stringify({ b: 2, zz: 1, aaa: 3 });
const SORTED_IDS = JSON.stringify({ b: ["m2"], zz: ["m1"], aaa: ["m3"] });

describe("run order", () => {
  it("runs come back in the stored run order, not the maps' key order", () => {
    const history = parseRunHistoryText(SORTED_DURATIONS, SORTED_IDS, JSON.stringify(["zz", "b", "aaa"]));
    expect(history).not.toBeNull();
    expect(runOrderOf(history!)).toEqual(["zz", "b", "aaa"]);
  });

  it("a leaf written before run_order existed keeps the key order; unknown or repeated ids in the order are ignored", () => {
    expect(runOrderOf(parseRunHistoryText(SORTED_DURATIONS, SORTED_IDS)!)).toEqual(["b", "zz", "aaa"]);
    const partial = parseRunHistoryText(SORTED_DURATIONS, SORTED_IDS, JSON.stringify(["aaa", "gone", "aaa"]));
    expect(runOrderOf(partial!)).toEqual(["aaa", "b", "zz"]);
  });

  it("a malformed order fails closed like malformed maps", () => {
    expect(parseRunHistoryText(SORTED_DURATIONS, SORTED_IDS, JSON.stringify([1, 2]))).toBeNull();
    expect(parseRunHistoryText(SORTED_DURATIONS, SORTED_IDS, "{")).toBeNull();
  });

  it("the order carried through admission seeds the next run's order", () => {
    const carried = cumulativeFrom(parseRunHistoryText(SORTED_DURATIONS, SORTED_IDS, JSON.stringify(["zz", "b", "aaa"]))!);
    expect(carried.run_order).toEqual(["zz", "b", "aaa"]);
  });
});
