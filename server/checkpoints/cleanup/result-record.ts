// The latest checkpoint analysis/cleanup result, one settings row (strict).
import type Database from "better-sqlite3";
import { parse } from "lossless-json";
import { CHECKPOINT_RETENTION_SETTINGS_KEY, retentionResult, type RetentionResult } from "@/lib/checkpoints/api";

export type StoredResult = { result: RetentionResult | null; malformed: boolean };

function safeNumber(value: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw new RangeError("number out of range");
  return n;
}

export function readResult(sqlite: Pick<Database.Database, "prepare">): StoredResult {
  const row = sqlite.prepare("SELECT value FROM settings WHERE key = ?").get(CHECKPOINT_RETENTION_SETTINGS_KEY) as { value: string } | undefined;
  if (!row) return { result: null, malformed: false };
  try {
    const parsed = retentionResult.safeParse(parse(row.value, null, safeNumber));
    return parsed.success ? { result: parsed.data, malformed: false } : { result: null, malformed: true };
  } catch {
    return { result: null, malformed: true };
  }
}

export function writeResult(sqlite: Pick<Database.Database, "prepare">, result: RetentionResult, nowMs: number): void {
  const value = JSON.stringify(retentionResult.parse(result));
  sqlite
    .prepare("INSERT INTO settings (key, value, updated_at_ms) VALUES (?, ?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value, updated_at_ms = excluded.updated_at_ms")
    .run(CHECKPOINT_RETENTION_SETTINGS_KEY, value, nowMs);
}
