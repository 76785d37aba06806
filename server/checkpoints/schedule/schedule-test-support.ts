// Test support for scheduled checkpoint maintenance: a runtime of the test's
// own on either engine with a clock and timers moved by hand, and threads
// written through the real thread service (LangGraph runs, admission,
// recorded handles).
import { vi } from "vitest";
import type { OpenRuntime } from "@/server/runtime";
import { createEngineTestRuntime, type EngineTestRuntime, type TestRuntimeOptions } from "@/server/runtime-test-support";
import { manualTime, type ManualTime } from "@/server/manual-time-test-support";
import { threadService } from "../service";
import { startRun } from "../runs";
import { createThread } from "../threads";

export const DAY_MS = 86_400_000;

/** 12:00 UTC on the current real day: LangGraph stamps checkpoint ids with the real time, our runs with the test's clock. */
export function middayToday(): number {
  const now = new Date();
  return Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate(), 12, 0, 0, 0);
}

export type ScheduleTestEnv = { rt: EngineTestRuntime; time: ManualTime };

export async function scheduleTestEnv(engine: "sqlite" | "postgres", options: TestRuntimeOptions & { startMs?: number } = {}): Promise<ScheduleTestEnv> {
  const time = manualTime(options.startMs ?? middayToday());
  const rt = await createEngineTestRuntime(engine, { prefix: "schedule-", ...options, clock: time.clock, timers: time.timers });
  return { rt, time };
}

export type TestThread = { threadId: string; handles: string[] };

/** A thread with `runs` agent runs (each answers a handle), written now on the test's clock. */
export async function writeThread(rt: OpenRuntime, runs = 2): Promise<TestThread> {
  const deps = threadService(rt);
  const { threadId } = await createThread(deps);
  const handles: string[] = [];
  for (let n = 1; n <= runs; n += 1) {
    const result = await startRun(deps, { threadId, content: `question ${n}` });
    if (result.status !== "success" || !result.checkpointId) throw new Error(`run ${n} did not succeed`);
    handles.push(result.checkpointId);
  }
  return { threadId, handles };
}

/** Rows of one thread in every table thread expiry deletes from (PostgreSQL counts its blobs too). */
export async function threadRows(rt: Pick<OpenRuntime, "handle" | "postgres">, threadId: string): Promise<{ checkpoints: number; writes: number; blobs: number; runs: number }> {
  if (rt.handle) {
    const one = (sql: string) => Number((rt.handle!.sqlite.prepare(sql).get(threadId) as { n: number }).n);
    const hasTables = Number((rt.handle.sqlite.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name IN ('checkpoints','writes')").get() as { n: number }).n) === 2;
    return {
      checkpoints: hasTables ? one("SELECT count(*) AS n FROM checkpoints WHERE thread_id = ?") : 0,
      writes: hasTables ? one("SELECT count(*) AS n FROM writes WHERE thread_id = ?") : 0,
      blobs: 0,
      runs: one("SELECT count(*) AS n FROM checkpoint_runs WHERE thread_id = ?"),
    };
  }
  const db = rt.postgres!;
  const one = async (sql: string) => Number((await db.one<{ n: number }>(sql, [threadId]))!.n);
  return {
    checkpoints: await one("select count(*) as n from checkpoints where thread_id = $1"),
    writes: await one("select count(*) as n from checkpoint_writes where thread_id = $1"),
    blobs: await one("select count(*) as n from checkpoint_blobs where thread_id = $1"),
    runs: await one("select count(*) as n from checkpoint_runs where thread_id = $1"),
  };
}

/** Lets the queued jobs and the timers' follow-ups settle (no real time passes). */
export async function settle(rt: EngineTestRuntime, rounds = 5): Promise<void> {
  for (let i = 0; i < rounds; i += 1) {
    await rt.checkpoints.schedule.idle();
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/**
 * Resolves with the first truthy answer of `check`, asked again every 10 ms
 * of real time while the jobs work (the manual clock does not move): a wait
 * for a state. `timeoutMs` only bounds a stuck state, so the failure names
 * what never came instead of the test's own timeout.
 */
export async function waitFor<T>(check: () => Promise<T | null | undefined | false> | T | null | undefined | false, options: { timeoutMs?: number; what?: string } = {}): Promise<T> {
  try {
    return (await vi.waitUntil(check, { timeout: options.timeoutMs ?? 90_000, interval: 10 })) as T;
  } catch (error) {
    throw new Error(`never reached ${options.what ?? "the awaited state"}`, { cause: error });
  }
}
