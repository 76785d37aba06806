import pino, { type Logger } from "pino";
import type { LogRing } from "./logs/ring";

// Structured logs: operation ids and counts only. Never log payload bodies,
// task titles, message content or credentials; pass ids and numbers.
export type { Logger };

const LEVEL_ORDER = ["trace", "debug", "info", "warn", "error", "fatal", "silent"];

/** The more verbose of two pino level names. */
function lowerLevel(a: string, b: string): string {
  const ia = LEVEL_ORDER.indexOf(a);
  const ib = LEVEL_ORDER.indexOf(b);
  if (ia < 0) return b;
  if (ib < 0) return a;
  return ia <= ib ? a : b;
}

/**
 * `destination` replaces every output (tests). Otherwise lines go to stdout
 * at LOG_LEVEL and, through a second stream, into `ring` (the log viewer's
 * bounded buffer) from info up even when stdout is quieter, so the Database
 * page shows recent operations on a server started with LOG_LEVEL=warn.
 */
export function createLogger(options: { level?: string; destination?: pino.DestinationStream; ring?: LogRing } = {}): Logger {
  const level = options.level ?? process.env.LOG_LEVEL ?? "info";
  const ringLevel = lowerLevel(level, "info");
  const settings: pino.LoggerOptions = {
    level: options.destination || !options.ring || level === "silent" ? level : ringLevel,
    base: { service: "workspace-retention" },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: {
      paths: ["password", "*.password", "token", "*.token", "cookie", "*.cookie", "authorization", "*.authorization"],
      censor: "[redacted]",
    },
  };
  if (options.destination || !options.ring || level === "silent") return pino(settings, options.destination);
  const streams: pino.StreamEntry[] = [
    // The same stdout destination pino uses by default.
    { level: level as pino.Level, stream: pino.destination(1) },
    { level: ringLevel as pino.Level, stream: options.ring.destination() as pino.DestinationStream },
  ];
  return pino(settings, pino.multistream(streams));
}
