// Every stored timestamp keeps its text exactly as given and gets an `_ms`
// companion from the one RFC 3339 parser (NULL when the text is invalid, which
// later makes the task ineligible for compaction).
import { parseRfc3339 } from "@/lib/time/rfc3339";

export type StampedTime = { text: string; ms: number | null };

/** A required timestamp: a missing one is stored as "" (invalid, so NULL ms). */
export function stampRequired(text: string | null | undefined): StampedTime {
  const value = typeof text === "string" ? text : "";
  return { text: value, ms: parseRfc3339(value) };
}

/** An optional timestamp: NULL stays NULL. */
export function stampOptional(text: string | null | undefined): { text: string | null; ms: number | null } {
  if (typeof text !== "string") return { text: null, ms: null };
  return { text, ms: parseRfc3339(text) };
}
