// A retention period as administrators set it: a count of days, weeks or
// calendar months. Messages compaction offers weeks and months; thread expiry
// offers days too. The cutoff arithmetic and the rule that decides when a
// changed period needs preparation again (lib/compaction/period-rule.ts,
// server/compaction/eligibility/cutoff.ts) take any of them.
export type PeriodUnit = "days" | "weeks" | "months";

export type Period = { value: number; unit: PeriodUnit };

/** Whole days a period spans when its unit has a fixed length (null for months). */
export function fixedPeriodDays(period: Period): number | null {
  if (period.unit === "days") return period.value;
  if (period.unit === "weeks") return period.value * 7;
  return null;
}
