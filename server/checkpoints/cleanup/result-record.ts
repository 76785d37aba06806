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

export async function readResult(store: CheckpointStore): Promise<StoredResult> {
  const value = await store.readResultRecord();
  if (value === undefined) return { result: null, malformed: false };
  try {
    const parsed = retentionResult.safeParse(parse(value, null, safeNumber));
    return parsed.success ? { result: parsed.data, malformed: false } : { result: null, malformed: true };
  } catch {
    return { result: null, malformed: true };
  }
}

export async function writeResult(store: CheckpointStore, result: RetentionResult, nowMs: number): Promise<void> {
  await store.writeResultRecord(JSON.stringify(retentionResult.parse(result)), nowMs);
}
