import { describe, expect, it } from "vitest";
import { collectGarbage } from "./collect-garbage";

// A WeakRef's target survives until the end of the job that made it: the
// check runs in a later job, after the collection.
function deadBuffer(): WeakRef<Buffer> {
  return new WeakRef(Buffer.alloc(8 * 1024 * 1024));
}

describe("collectGarbage", () => {
  it("collects a dead Buffer on demand, every time, without exposing gc globally", async () => {
    for (let round = 0; round < 3; round++) {
      const ref = deadBuffer();
      await new Promise((resolve) => setImmediate(resolve));
      collectGarbage();
      expect(ref.deref()).toBeUndefined();
    }
    expect("gc" in globalThis).toBe(false);
  });
});
