// PostgreSQL connection settings from the environment. Defaults suit one
// app instance; several instances on one server divide max_connections.
export type PgTimeouts = {
  /** Milliseconds a statement may run before the server cancels it (0 = no limit). */
  statementTimeoutMs: number;
  /** Milliseconds a statement waits for a row or table lock (0 = wait forever). */
  lockTimeoutMs: number;
};

export type PgConfig = {
  url: string;
  /** Most connections one process opens (PG_POOL_MAX). */
  poolMax: number;
  /** Session defaults; a transaction may set its own (see PgDb.transaction). */
  timeouts: PgTimeouts;
  applicationName: string;
  /**
   * Sessions plan each prepared statement once (`plan_cache_mode =
   * force_generic_plan`) instead of again at every execution. For the
   * cleanup pass's pool only (thread-config.ts): its statements are key and
   * range lookups whose plan does not depend on the values, and the server
   * kept re-planning them (the task probe: 0.8 ms to plan, 0.3 ms to run).
   */
  genericPlans?: boolean;
};

type Env = Readonly<Record<string, string | undefined>>;

export const DEFAULT_TIMEOUTS: PgTimeouts = { statementTimeoutMs: 30_000, lockTimeoutMs: 5_000 };

function readCount(env: Env, name: string, fallback: number, min: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < min) throw new Error(`${name} must be an integer >= ${min} (got "${raw}")`);
  return value;
}

export function readPgConfig(url: string, env: Env = process.env): PgConfig {
  return {
    url,
    poolMax: readCount(env, "PG_POOL_MAX", 4, 1),
    timeouts: {
      statementTimeoutMs: readCount(env, "PG_STATEMENT_TIMEOUT_MS", DEFAULT_TIMEOUTS.statementTimeoutMs, 0),
      lockTimeoutMs: readCount(env, "PG_LOCK_TIMEOUT_MS", DEFAULT_TIMEOUTS.lockTimeoutMs, 0),
    },
    applicationName: env.PG_APPLICATION_NAME?.trim() || "agent-storage-retention",
  };
}
