import { describe, expect, it } from "vitest";
import { AppError } from "@/server/errors";
import { createMaintenanceGuard } from "./guard";
import { createQuiescerRegistry } from "./quiescence";

describe("maintenance guard", () => {
  it("[TPR-SCH-05] only one lease at a time; a batch defers (null) while a backup holds it", async () => {
    const guard = createMaintenanceGuard();
    const backup = await guard.tryAcquire({ owner: "op-backup", kind: "backup" });
    expect(backup).not.toBeNull();
    expect(await guard.tryAcquire({ owner: "op-batch", kind: "compaction" })).toBeNull();
    expect(await guard.holder()).toMatchObject({ owner: "op-backup", kind: "backup" });
    backup!.release();
    const batch = await guard.tryAcquire({ owner: "op-batch", kind: "compaction" });
    expect(batch?.held()).toBe(true);
  });

  it("[TPR-SCH-05] exclusive operations refuse with maintenance_busy while a batch holds the guard", async () => {
    const guard = createMaintenanceGuard();
    const batch = (await guard.tryAcquire({ owner: "op-batch", kind: "compaction" }))!;
    for (const kind of ["backup", "restore", "vacuum", "optimize", "reset"] as const) {
      await expect(guard.acquireExclusive({ owner: "x", kind })).rejects.toThrow(AppError);
      try {
        await guard.acquireExclusive({ owner: "x", kind });
      } catch (error) {
        expect((error as AppError).code).toBe("maintenance_busy");
      }
    }
    await expect(guard.withExclusive({ owner: "v", kind: "vacuum" }, () => 1)).rejects.toMatchObject({ code: "maintenance_busy" });
    batch.release();
    await expect(guard.withExclusive({ owner: "v", kind: "vacuum" }, () => 1)).resolves.toBe(1);
    expect(await guard.holder()).toBeNull();
  });

  it("[TPR-SCH-05] a stale lease cannot release somebody else's lease", async () => {
    const guard = createMaintenanceGuard();
    const first = (await guard.tryAcquire({ owner: "a", kind: "backup" }))!;
    first.release();
    const second = (await guard.tryAcquire({ owner: "b", kind: "vacuum" }))!;
    first.release(); // late double release from the first owner
    expect(second.held()).toBe(true);
    expect(first.held()).toBe(false);
    expect(await guard.tryAcquire({ owner: "c", kind: "compaction" })).toBeNull();
  });

  it("withExclusive releases the lease when the work throws", async () => {
    const guard = createMaintenanceGuard();
    await expect(
      guard.withExclusive({ owner: "v", kind: "vacuum" }, () => {
        throw new Error("boom");
      }),
    ).rejects.toThrow("boom");
    expect(await guard.holder()).toBeNull();
  });
});

describe("quiescence registry", () => {
  it("[TPR-SCH-06] stops registered components before the caller proceeds and restarts them after", async () => {
    const events: string[] = [];
    const quiescers = createQuiescerRegistry();
    const off = quiescers.register("worker", {
      stop: async () => {
        events.push("stop");
      },
      start: () => events.push("start"),
    });
    const resume = await quiescers.quiesceAll();
    events.push("replace-db");
    resume();
    off();
    expect(events).toEqual(["stop", "replace-db", "start"]);
  });

  it("[TPR-SCH-06] a failing stop restarts the components already stopped and propagates", async () => {
    const events: string[] = [];
    const quiescers = createQuiescerRegistry();
    const offA = quiescers.register("a", { stop: async () => void events.push("stop-a"), start: () => events.push("start-a") });
    const offB = quiescers.register("b", {
      stop: async () => {
        throw new Error("cannot stop");
      },
      start: () => events.push("start-b"),
    });
    await expect(quiescers.quiesceAll()).rejects.toThrow("cannot stop");
    offA();
    offB();
    expect(events).toEqual(["stop-a", "start-a"]);
  });
});
