// Composition root: the one place that reads the environment and picks the
// system clock. Everything below receives what it needs as arguments.
import { openDatabase, type DbHandle } from "./db/client";
import { parseDatabaseUrl, type DatabaseTarget } from "./db/url";
import { systemClock, systemTimers, type Clock, type Timers } from "./clock";
import { logger, type Logger } from "./log";

export type Runtime = {
  target: DatabaseTarget;
  /** Null when the engine is unsupported: no query may be sent then. */
  handle: DbHandle | null;
  clock: Clock;
  timers: Timers;
  log: Logger;
};

const runtimeKey = Symbol.for("workspace-retention.runtime");
type GlobalWithRuntime = typeof globalThis & { [runtimeKey]?: Runtime };

export function createRuntime(env: NodeJS.ProcessEnv = process.env): Runtime {
  const target = parseDatabaseUrl(env.DATABASE_URL);
  const handle = target.engine === "sqlite" ? openDatabase({ file: target.file }) : null;
  return { target, handle, clock: systemClock, timers: systemTimers, log: logger() };
}

/** The process runtime, created on first use (survives dev reloads). */
export function runtime(): Runtime {
  const g = globalThis as GlobalWithRuntime;
  g[runtimeKey] ??= createRuntime();
  return g[runtimeKey];
}

/** Closes the process database connection (shutdown, restore). */
export function closeRuntime(): void {
  const g = globalThis as GlobalWithRuntime;
  const rt = g[runtimeKey];
  if (rt?.handle?.sqlite.open) rt.handle.sqlite.close();
  delete g[runtimeKey];
}
