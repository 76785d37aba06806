import { ageSchema, type CompactionAge } from "@/lib/compaction/policy";
import { expiryAgeSchema, type ExpiryAge } from "@/lib/checkpoints/maintenance-api";

/** "3m" -> 3 months, "12w" -> 12 weeks; null for anything else or out of range. */
export function parseAge(text: string): CompactionAge | null {
  const match = /^(\d{1,4})([mw])$/.exec(text.trim());
  if (!match) return null;
  const parsed = ageSchema.safeParse({ value: Number(match[1]), unit: match[2] === "m" ? "months" : "weeks" });
  return parsed.success ? parsed.data : null;
}

export function formatAge(age: CompactionAge): string {
  return `${age.value}${age.unit === "months" ? "m" : "w"}`;
}

/** "90d" -> 90 days, "12w" -> 12 weeks, "6m" -> 6 months (thread expiry's periods); null otherwise. */
export function parseExpiryAge(text: string): ExpiryAge | null {
  const match = /^(\d{1,4})([dwm])$/.exec(text.trim());
  if (!match) return null;
  const unit = match[2] === "d" ? "days" : match[2] === "w" ? "weeks" : "months";
  const parsed = expiryAgeSchema.safeParse({ value: Number(match[1]), unit });
  return parsed.success ? parsed.data : null;
}

export function formatExpiryAge(age: ExpiryAge): string {
  return `${age.value}${age.unit === "days" ? "d" : age.unit === "weeks" ? "w" : "m"}`;
}
