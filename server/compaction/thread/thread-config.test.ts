import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { manualClock } from "@/server/clock";
import { createTestDb, type TestDb } from "@/server/db/test-db";
import { createLogger } from "@/server/log";
import { NOW_MS, armPolicy, countMarkedRows, seedOldTask, storeOf } from "../test-support";
import { createSliceRunner } from "../worker/cleanup-slice";
import { newPassThreadState, type PassThreadState } from "../worker/worker-types";
import { passThreadFromEnv } from "./thread-config";

let t: TestDb;
beforeEach(async () => {
  t = createTestDb("ws-thread-config-");
});
afterEach(() => t.close());

function captureLog() {
  const lines: Array<{ level: number; msg: string; setting?: string; code?: string }> = [];
  const log = createLogger({ level: "info", destination: { write: (line: string) => void lines.push(JSON.parse(line)) } });
  return { log, lines };
}

describe("COMPACTION_THREAD", () => {
  it("auto picks the thread for SQLite on the system clock once an up-to-date bundle exists; off, PostgreSQL, an injected clock and a stale bundle stay inline", async () => {
    const bundlePath = path.join(t.dir, "pass-thread.cjs");
    const { log, lines } = captureLog();
    const choose = (env: Record<string, string>, extra: { engine?: string; injectedClock?: boolean } = {}) =>
      passThreadFromEnv({ env, engine: extra.engine ?? "sqlite", injectedClock: extra.injectedClock ?? false, log, bundlePath, root: t.dir }).reason;
    expect(choose({})).toBe("no_bundle");
    expect(lines.filter((l) => l.msg.includes("no thread bundle"))).toHaveLength(1);
    // A second runtime in the process asks for itself and says it too: no flag of the first silences it.
    expect(choose({})).toBe("no_bundle");
    expect(lines.filter((l) => l.msg.includes("no thread bundle"))).toHaveLength(2);
    // Built from one source, which is older than the bundle.
    fs.writeFileSync(path.join(t.dir, "source.ts"), "");
    fs.utimesSync(path.join(t.dir, "source.ts"), new Date(NOW_MS - 60_000), new Date(NOW_MS - 60_000));
    fs.writeFileSync(bundlePath, "");
    fs.utimesSync(bundlePath, new Date(NOW_MS), new Date(NOW_MS));
    expect(choose({})).toBe("stale_bundle");
    fs.writeFileSync(`${bundlePath}.inputs.json`, JSON.stringify(["source.ts"]));
    expect(choose({})).toBe("thread");
    expect(choose({ COMPACTION_THREAD: "auto" })).toBe("thread");
    expect(choose({ COMPACTION_THREAD: "off" })).toBe("off");
    expect(choose({}, { engine: "postgres" })).toBe("engine");
    expect(choose({}, { injectedClock: true })).toBe("injected_clock");
    expect(choose({ COMPACTION_THREAD: "yes" })).toBe("thread");
    expect(lines.some((l) => l.setting === "COMPACTION_THREAD" && l.msg.startsWith("ignored"))).toBe(true);
    // A source changed after the build: yesterday's pass must not run.
    fs.utimesSync(path.join(t.dir, "source.ts"), new Date(NOW_MS + 60_000), new Date(NOW_MS + 60_000));
    expect(choose({})).toBe("stale_bundle");
    expect(lines.filter((l) => l.msg.includes("older than its sources"))).toHaveLength(2);
  });

  it("a worker whose thread cannot start runs its slices inline and says so once; its runtime's next worker stays inline, another runtime still tries its own thread", async () => {
    await armPolicy(t.sqlite);
    seedOldTask(t.sqlite, "a", 5);
    const { log, lines } = captureLog();
    const passThread = { bundlePath: path.join(t.dir, "missing.cjs") };
    const runtimeState = newPassThreadState();
    const runnerOf = (passThreadState: PassThreadState) => {
      const runSlice = createSliceRunner({ passThread, passThreadState, dbFile: t.file, clock: manualClock(NOW_MS), log });
      return (operationId: string) =>
        runSlice({ store: storeOf(t.sqlite), clock: manualClock(NOW_MS), operationId, wait: async () => {}, admitBatch: async () => ({ release() {} }) });
    };
    const unavailableLines = () => lines.filter((l) => l.msg.includes("cleanup thread unavailable"));
    const slice = runnerOf(runtimeState);
    expect(await slice("run-1")).toMatchObject({ state: "succeeded" });
    expect(countMarkedRows(t.sqlite)).toBe(5);
    expect(await slice("run-2")).toMatchObject({ state: "succeeded" });
    expect(unavailableLines()).toEqual([expect.objectContaining({ code: "MODULE_NOT_FOUND" })]);
    expect(runtimeState.unavailable).toBe(true);
    // A worker the same runtime rebuilds (a restore, a new lease) does not try again.
    expect(await runnerOf(runtimeState)("run-3")).toMatchObject({ state: "succeeded" });
    expect(unavailableLines()).toHaveLength(1);
    // Another runtime's worker tries its thread itself (and falls back on its own).
    expect(await runnerOf(newPassThreadState())("run-4")).toMatchObject({ state: "succeeded" });
    expect(unavailableLines()).toHaveLength(2);
  });
});
