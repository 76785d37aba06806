import pino, { type Logger } from "pino";

// Structured logs: operation ids and counts only. Never log payload bodies,
// task titles, message content or credentials; pass ids and numbers.
export type { Logger };

export function createLogger(options: { level?: string; destination?: pino.DestinationStream } = {}): Logger {
  const level = options.level ?? process.env.LOG_LEVEL ?? "info";
  return pino(
    {
      level,
      base: { service: "workspace-retention" },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: {
        paths: ["password", "*.password", "token", "*.token", "cookie", "*.cookie", "authorization", "*.authorization"],
        censor: "[redacted]",
      },
    },
    options.destination,
  );
}

const globalKey = Symbol.for("workspace-retention.logger");
type GlobalWithLogger = typeof globalThis & { [globalKey]?: Logger };

/** The process logger (one per process, survives dev reloads). */
export function logger(): Logger {
  const g = globalThis as GlobalWithLogger;
  g[globalKey] ??= createLogger();
  return g[globalKey];
}
