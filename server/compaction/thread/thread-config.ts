// Where a cleanup slice runs: COMPACTION_THREAD=auto (default) runs it on a
// worker thread when the server runs on the system clock and the thread
// bundle was built (`npm run build`); `off` keeps it on the main event loop.
// On PostgreSQL too: awaiting the pass's statements frees the loop only while
// the server works, and the rest (decoding each page's bodies, the reducer,
// the probes' JSON) held a status GET at 3.5-6x its idle p95; on the thread
// the slice has a pool of its own (pg-pass-connection.ts).
import fs from "node:fs";
import path from "node:path";
import type { PgConfig } from "@/server/db/pg/config";
import type { Logger } from "@/server/log";

/** The bundle `npm run build` writes (scripts/build-pass-thread.ts). */
export function defaultPassThreadBundle(root: string = process.cwd()): string {
  return path.join(root, "dist", "compaction-pass-thread.cjs");
}

/** Sessions a PostgreSQL slice opens at most, besides the runtime's pool. */
export const PG_PASS_SESSIONS = 2;

/** The slice's pool settings derived from the runtime's: its own name in pg_stat_activity, at most two sessions, each statement planned once. */
export function pgPassConfig(config: PgConfig): PgConfig {
  return { ...config, poolMax: Math.min(PG_PASS_SESSIONS, config.poolMax), applicationName: `${config.applicationName} pass`, genericPlans: true };
}

export type PassThreadSettings = {
  /** The bundled thread entry (server/compaction/thread/pass-thread.ts). */
  bundlePath: string;
  /** Where the thread resolves the database drivers from (default: the working directory, the app root). */
  root?: string;
  /** PostgreSQL: the settings of the slice's own pool (absent: the slice opens the SQLite file). */
  postgres?: PgConfig;
};

export type PassThreadChoice = { settings: PassThreadSettings | null; reason: "thread" | "off" | "engine" | "injected_clock" | "no_bundle" | "stale_bundle" };

/**
 * Picks the thread for this runtime, or null (inline), and says why not once:
 * the runtime asks once (a restore rebuilds the worker, not the choice). An
 * injected clock or timers mean a test drives time by hand: those passes
 * stay inline.
 */
export function passThreadFromEnv(options: {
  env: Readonly<Record<string, string | undefined>>;
  engine: string;
  /** The runtime's pool settings on PostgreSQL: the slice's own pool is derived from them. */
  postgres?: PgConfig | null;
  injectedClock: boolean;
  log: Pick<Logger, "warn" | "info">;
  bundlePath?: string;
  /** Where the bundle's recorded sources are (default: the working directory, the app root). */
  root?: string;
}): PassThreadChoice {
  const raw = options.env.COMPACTION_THREAD ?? "";
  if (raw !== "" && raw !== "auto" && raw !== "off") options.log.warn({ setting: "COMPACTION_THREAD" }, "ignored: expected auto or off");
  if (raw === "off") return { settings: null, reason: "off" };
  const postgres = options.engine === "postgres" && options.postgres ? pgPassConfig(options.postgres) : undefined;
  if (options.engine !== "sqlite" && !postgres) return { settings: null, reason: "engine" };
  if (options.injectedClock) return { settings: null, reason: "injected_clock" };
  const bundlePath = options.bundlePath ?? defaultPassThreadBundle();
  // The bundle and its sources are files of the installed app, not server code to trace into the build.
  if (!fs.existsSync(/*turbopackIgnore: true*/ bundlePath)) {
    options.log.info({ setting: "COMPACTION_THREAD" }, "cleanup passes run inline: no thread bundle (npm run build writes it)");
    return { settings: null, reason: "no_bundle" };
  }
  // A bundle older than its sources would run yesterday's pass beside today's record code.
  if (isStale(bundlePath, options.root ?? process.cwd())) {
    options.log.warn({ setting: "COMPACTION_THREAD" }, "cleanup passes run inline: the thread bundle is older than its sources (npm run build rewrites it)");
    return { settings: null, reason: "stale_bundle" };
  }
  return { settings: postgres ? { bundlePath, postgres } : { bundlePath }, reason: "thread" };
}

/** True when the bundle's list of sources is missing or one of them changed after it was built. */
export function isStale(bundlePath: string, root: string): boolean {
  try {
    const builtMs = fs.statSync(/*turbopackIgnore: true*/ bundlePath).mtimeMs;
    const inputs = JSON.parse(fs.readFileSync(/*turbopackIgnore: true*/ `${bundlePath}.inputs.json`, "utf8")) as unknown;
    if (!Array.isArray(inputs)) return true;
    return inputs.some((input) => typeof input !== "string" || fs.statSync(/*turbopackIgnore: true*/ path.join(root, input)).mtimeMs > builtMs);
  } catch {
    return true;
  }
}
