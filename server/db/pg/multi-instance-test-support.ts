// Shared set-up of the two-instance tests: fresh PostgreSQL databases, app
// instances (runtimes) on them with compressed or parked timers, a seeded
// workspace of old tool outputs, and reads of the shared compaction record.
import fs from "node:fs";
import pg from "pg";
import { vi } from "vitest";
import os from "node:os";
import path from "node:path";
import type { Timers } from "@/server/clock";
import { armPolicyOn, shellMetadata } from "@/server/compaction/test-support";
import type { CompactionOperation } from "@/server/compaction/policy/policy-schema";
import { createLogger, type Logger } from "@/server/log";
import { createMigratedRuntime, openRuntime, type OpenRuntime, type RuntimeOptions } from "@/server/runtime";
import { createEmptyPgDatabase } from "./test-db";

export const OLD = "2025-01-01T00:00:00Z";
export const TASKS = 12;
export const PER_TASK = 25;

export type Cleanups = Array<() => Promise<void> | void>;

/** Real timers with every delay compressed: lease polls, the one-minute readiness delay and continuations happen within milliseconds. */
export const fastTimers: Timers = {
  setTimeout: (fn, ms) => setTimeout(fn, Math.min(ms, 10)),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/**
 * Compressed up to a minute (polls, continuations, the record watch), never
 * beyond (a daily schedule armed for tomorrow stays parked). `hold()` parks
 * the minute-long ones too (a pass stays between slices) until `release()`.
 */
export function minuteTimers() {
  let holding = false;
  const held: Array<() => void> = [];
  const timers: Timers = {
    setTimeout(fn, ms) {
      if (ms > 60_000) return { parked: true };
      if (holding && ms >= 60_000) {
        const entry = { cancelled: false };
        held.push(() => {
          if (!entry.cancelled) fn();
        });
        return entry;
      }
      return setTimeout(fn, Math.min(ms, 10));
    },
    clearTimeout(handle) {
      if (handle && typeof handle === "object" && "cancelled" in handle) (handle as { cancelled: boolean }).cancelled = true;
      else if (handle && typeof handle === "object" && !("parked" in handle)) clearTimeout(handle as NodeJS.Timeout);
    },
  };
  return {
    timers,
    hold: () => {
      holding = true;
    },
    release: () => {
      holding = false;
      for (const fire of held.splice(0)) setTimeout(fire, 0);
    },
  };
}

export async function database(cleanups: Cleanups): Promise<{ url: string; dir: string }> {
  const db = await createEmptyPgDatabase();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pg-multi-"));
  cleanups.push(async () => {
    await db.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return { url: db.url, dir };
}

type Life = { dead: boolean; applicationName: string; url: string };
const lives = new WeakMap<OpenRuntime, Life>();
let instances = 0;

export async function instance(
  cleanups: Cleanups,
  db: { url: string; dir: string },
  options: { timers?: Timers; pass?: NonNullable<RuntimeOptions["worker"]>["pass"]; log?: Logger } = {},
): Promise<OpenRuntime> {
  // Each instance's sessions carry a name of its own (killInstance finds them by it); its timers stop firing once it is killed.
  const life: Life = { dead: false, applicationName: `instance-${process.pid}-${++instances}`, url: db.url };
  const base = options.timers ?? fastTimers;
  const timers: Timers = {
    setTimeout: (fn, ms) => base.setTimeout(() => void (life.dead || fn()), ms),
    clearTimeout: (handle) => base.clearTimeout(handle),
  };
  const rt = openRuntime(
    await createMigratedRuntime({
      env: { DATABASE_URL: db.url, DATA_DIR: db.dir, PG_APPLICATION_NAME: life.applicationName },
      log: options.log ?? createLogger({ level: "silent" }),
      timers,
      worker: { pass: options.pass ?? { yieldMs: 5 } },
    }),
  );
  if (!rt) throw new Error("the instance did not open its database");
  lives.set(rt, life);
  cleanups.push(() => rt.stop());
  return rt;
}

/**
 * The instance's process dies: every PostgreSQL session it had ends at once
 * (the server terminates them, releasing its session-level locks), and none
 * of its timers fires again (no poll, no reconnect).
 */
export async function killInstance(rt: OpenRuntime): Promise<void> {
  const life = lives.get(rt);
  if (!life) throw new Error("not an instance of this support");
  life.dead = true;
  // A dead process opens no connection again: its pool refuses every statement from here on (else a pass of
  // the "dead" instance would reconnect and go on, and could record its own failure over the new holder's run).
  const pool = rt.postgres?.pool;
  rt.postgres = null;
  const ending = pool?.end().catch(() => undefined);
  const killer = new pg.Client({ connectionString: life.url });
  await killer.connect();
  try {
    await killer.query(`select pg_terminate_backend(pid) from pg_stat_activity where application_name like $1 || '%' and pid <> pg_backend_pid()`, [life.applicationName]);
  } finally {
    await killer.end();
  }
  await ending;
}

/** Old completed tasks with large tool outputs, and the policy armed; returns its revision. */
export async function seed(rt: OpenRuntime): Promise<number> {
  await seedMessages(rt);
  return armPolicyOn(rt.stores.compaction, { value: 1, unit: "weeks" }, rt.clock.now());
}

/** Old completed tasks with large tool outputs (TASKS x PER_TASK messages). */
export async function seedMessages(rt: OpenRuntime): Promise<void> {
  await rt.stores.workspace.writeTransaction(async (tx) => {
    for (let t = 0; t < TASKS; t += 1) {
      const id = `t${String(t).padStart(3, "0")}`;
      await tx.insertTask({ id, title: id, state: "COMPLETED", createdAt: OLD, updatedAt: OLD, queuedForStep: false });
      await tx.insertSession({ id: `${id}-s`, taskId: id, state: "COMPLETED", startedAt: OLD, updatedAt: OLD, completedAt: OLD });
      await tx.insertTurn({ id: `${id}-u`, sessionId: `${id}-s`, startedAt: OLD, completedAt: OLD });
      for (let m = 0; m < PER_TASK; m += 1) {
        await tx.insertMessage({
          id: `${id}-m${m}`,
          sessionId: `${id}-s`,
          turnId: `${id}-u`,
          authorType: "agent",
          type: "tool_execute",
          content: "tool",
          metadata: shellMetadata(`${id}-c${m}`, "y".repeat(20_000)),
          toolCallId: `${id}-c${m}`,
          createdAt: OLD,
          updatedAt: OLD,
        });
      }
    }
  });
}

/** Waits for a state another instance (or its timers) brings about; vitest's own poller, no clock reads here. */
export async function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 40_000): Promise<void> {
  await vi.waitFor(
    async () => {
      if (!(await condition())) throw new Error(`timed out waiting for ${what}`);
    },
    { timeout: timeoutMs, interval: 10 },
  );
}

type Runtime = { activeOperation: CompactionOperation | null; latestRun: CompactionOperation | null; latestAnalysis: CompactionOperation | null };

/** The stored record's runtime, read as stored (not through the store's parsing) on the instance's pool. */
export async function recordRuntime(rt: OpenRuntime): Promise<Runtime | null> {
  const text = (await rt.postgres!.one<{ value: string }>(`select value from settings where key = 'tool_payload_retention'`))?.value ?? null;
  return text ? (JSON.parse(text).runtime as Runtime) : null;
}

export async function latestRun(rt: OpenRuntime) {
  return (await recordRuntime(rt))?.latestRun ?? null;
}
