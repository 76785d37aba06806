// Following a pass in the CLI's process when the maintenance window closes
// during it: even with --until-done the CLI stops at the pause (work left,
// recorded as a slice end) instead of waiting for the next opening.
import { afterEach, describe, expect, it } from "vitest";
import { manualClock } from "@/server/clock";
import { readCompactionRecord } from "@/server/compaction/policy/record";
import { runCompaction } from "@/server/compaction/service";
import { NOW_MS, armPolicyOn, countMarkedRows, seedOldTask } from "@/server/compaction/test-support";
import { createTestRuntime, type TestRuntime } from "@/server/runtime-test-support";
import { followOperation, SLICE_ENDED_CODE } from "./follow";

let rt: TestRuntime | null = null;
afterEach(async () => {
  await rt?.dispose();
  rt = null;
});

describe("followOperation and the maintenance window", () => {
  it("--until-done stops with work left when the window closes during the pass (the pass ends as a slice end)", async () => {
    // NOW_MS is 2025-07-08T00:00Z: 01:00 in Lisbon, inside 01:00-05:00.
    const clock = manualClock(NOW_MS);
    // Batches of two rows: the six rows take three batches, so the window closes mid-pass.
    rt = createTestRuntime({ clock, env: { MAINTENANCE_WINDOW: "01:00-05:00 Europe/Lisbon" }, worker: { pass: { yieldMs: 0, maxBatchRows: 2 } } });
    for (const task of ["task-a", "task-b", "task-c"]) seedOldTask(rt.handle.sqlite, task, 2);
    const revision = await armPolicyOn(rt.stores.compaction, { value: 1, unit: "weeks" }, NOW_MS);
    // The window closes (05:30 WEST) while the first batch commits.
    const unsubscribe = rt.bus.subscribe((event) => {
      if (event.type === "messages_changed") clock.set(Date.parse("2025-07-08T04:30:00Z"));
    });
    rt.compaction.startForeground();

    const { operationId } = await runCompaction(rt, { expectedRevision: revision });
    const outcome = await followOperation(rt, { operationId, untilDone: true });
    unsubscribe();

    expect(outcome).toBe("window_closed");
    const changed = countMarkedRows(rt.handle.sqlite);
    expect(changed).toBeGreaterThan(0);
    expect(changed).toBeLessThan(6);
    const read = await readCompactionRecord(rt.stores.compaction);
    if (read.state === "malformed") throw new Error("malformed record");
    expect(read.record.runtime.activeOperation).toBeNull();
    expect(read.record.runtime.latestRun).toMatchObject({ id: operationId, state: "cancelled", errorCode: SLICE_ENDED_CODE, changedMessages: changed });
  });
});
