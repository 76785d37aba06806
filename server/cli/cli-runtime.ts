import pino from "pino";
import { createLogger } from "@/server/log";
import { createMigratedRuntime, openRuntime, type OpenRuntime } from "@/server/runtime";
import { AppError } from "@/server/errors";

/**
 * The server's runtime without the HTTP server: the same database, stores,
 * maintenance guard (its lock file is shared with a live server), worker
 * and checkpoint services. The worker starts in the foreground: it runs the
 * jobs this process asks for and leaves recovery and the daily schedule to
 * the server. Logs go to stderr (warn and up unless LOG_LEVEL says more) so
 * stdout carries only the answer.
 */
export async function openCliRuntime(env: NodeJS.ProcessEnv = process.env): Promise<OpenRuntime> {
  const log = createLogger({ level: env.LOG_LEVEL ?? "warn", destination: pino.destination(2) });
  const rt = openRuntime(await createMigratedRuntime({ env, log }));
  if (!rt) throw new AppError("unsupported_engine", "DATABASE_URL names an engine this release does not support");
  rt.compaction.startForeground();
  // Passes and cleanups run here are sampled here (the server never hears of them); the daily sample stays the server's.
  rt.storageHistory.listen();
  rt.checkpoints.schedule.startForeground();
  return rt;
}

