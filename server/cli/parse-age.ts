import { ageSchema, type RetentionAge } from "@/lib/compaction/policy";

/** "3m" -> 3 months, "12w" -> 12 weeks; null for anything else or out of range. */
export function parseAge(text: string): RetentionAge | null {
  const match = /^(\d{1,4})([mw])$/.exec(text.trim());
  if (!match) return null;
  const parsed = ageSchema.safeParse({ value: Number(match[1]), unit: match[2] === "m" ? "months" : "weeks" });
  return parsed.success ? parsed.data : null;
}

export function formatAge(age: RetentionAge): string {
  return `${age.value}${age.unit === "months" ? "m" : "w"}`;
}
