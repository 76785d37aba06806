// Shapes of GET /api/v1/system/logs, shared by the route and the log viewer.
import { z } from "zod";

export const LOG_LEVELS = ["trace", "debug", "info", "warn", "error", "fatal"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** pino's numeric levels. */
export const LOG_LEVEL_VALUES: Record<LogLevel, number> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60 };

/** One recorded line: level, time, message and allowlisted id/number fields only. */
export const logEntrySchema = z.object({
  seq: z.number(),
  level: z.enum(LOG_LEVELS),
  time: z.string(),
  msg: z.string(),
  fields: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])),
});
export type LogEntry = z.infer<typeof logEntrySchema>;

/** Entries newest first, at or above `level`. */
export const logsResponseSchema = z.object({ level: z.enum(LOG_LEVELS), capacity: z.number(), entries: z.array(logEntrySchema) });
export type LogsResponse = z.infer<typeof logsResponseSchema>;

export const logsQuerySchema = z.strictObject({
  level: z.enum(LOG_LEVELS).default("info"),
  limit: z.coerce.number().int().min(1).max(500).default(200),
});
