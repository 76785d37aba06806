// The latest checkpoint analysis/cleanup result, one settings row (strict).
import { parse } from "lossless-json";
import { retentionResult, type RetentionResult } from "@/lib/checkpoints/api";
import type { CheckpointStore } from "../store";

export type StoredResult = { result: RetentionResult | null; malformed: boolean };

function safeNumber(value: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw new RangeError("number out of range");
  return n;
}

export function readResult(store: CheckpointStore): StoredResult {
  const value = store.readResultRecord();
  if (value === undefined) return { result: null, malformed: false };
  try {
    const parsed = retentionResult.safeParse(parse(value, null, safeNumber));
    return parsed.success ? { result: parsed.data, malformed: false } : { result: null, malformed: true };
  } catch {
    return { result: null, malformed: true };
  }
}

export function writeResult(store: CheckpointStore, result: RetentionResult, nowMs: number): void {
  store.writeResultRecord(JSON.stringify(retentionResult.parse(result)), nowMs);
}
