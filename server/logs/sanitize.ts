// No "server-only" here: server/log.ts (used by CLI scripts too) reaches it.
import { LOG_LEVEL_VALUES, type LogEntry, type LogLevel } from "@/lib/logs/api";

/**
 * Turns one pino JSON line into what the log viewer may show. An allowlist,
 * not a denylist: a field survives only if it is a number or boolean under a
 * plain key (counts, durations, sizes, flags), or an identifier-shaped string
 * under a known id key. Free text (titles, message content, payloads, error
 * messages, stacks) has nowhere to go: nested objects, arrays and any other
 * string are dropped.
 */
export const ID_KEYS = new Set([
  "operationId",
  "requestId",
  "code",
  "errCode",
  "errName",
  "kind",
  "state",
  "step",
  "event",
  "label",
  "backup",
  "threadId",
  "runId",
  "checkpointId",
  "stagingId",
  "op",
]);

const KEY_PATTERN = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;
// Ids, codes and backup names: no spaces, nothing that reads as prose.
const ID_VALUE_PATTERN = /^[A-Za-z0-9_.:-]{1,160}$/;
// pino's own bookkeeping, and base fields that say nothing to an operator.
const SKIPPED = new Set(["level", "time", "msg", "pid", "hostname", "service", "v"]);
const MAX_FIELDS = 24;
const MAX_MSG = 200;

type Fields = LogEntry["fields"];

function levelName(value: unknown): LogLevel | null {
  for (const [name, number] of Object.entries(LOG_LEVEL_VALUES)) if (number === value) return name as LogLevel;
  return null;
}

function keepField(fields: Fields, key: string, value: unknown): void {
  if (!KEY_PATTERN.test(key) || Object.keys(fields).length >= MAX_FIELDS) return;
  if (typeof value === "number" && Number.isFinite(value)) fields[key] = value;
  else if (typeof value === "boolean") fields[key] = value;
  else if (typeof value === "string" && ID_KEYS.has(key) && ID_VALUE_PATTERN.test(value)) fields[key] = value;
}

/** `err: {name, code}` is how we log failures: only its name and code survive. */
function keepError(fields: Fields, err: unknown): void {
  if (typeof err !== "object" || err === null || Array.isArray(err)) return;
  const { name, code } = err as { name?: unknown; code?: unknown };
  keepField(fields, "errName", name);
  keepField(fields, "errCode", code);
}

export function sanitizeLogRecord(record: unknown): Omit<LogEntry, "seq"> | null {
  if (typeof record !== "object" || record === null || Array.isArray(record)) return null;
  const raw = record as Record<string, unknown>;
  const level = levelName(raw.level);
  if (!level) return null;
  const time = typeof raw.time === "string" ? raw.time : typeof raw.time === "number" ? new Date(raw.time).toISOString() : "";
  const msg = typeof raw.msg === "string" ? raw.msg.slice(0, MAX_MSG) : "";
  const fields: Fields = {};
  for (const [key, value] of Object.entries(raw)) {
    if (SKIPPED.has(key)) continue;
    if (key === "err") keepError(fields, value);
    else keepField(fields, key, value);
  }
  return { level, time, msg, fields };
}
