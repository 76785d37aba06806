import { describe, expect, it } from "vitest";
import { AGE_LIMITS, type CompactionAge } from "@/lib/compaction/policy";
import { cutoffCanMoveLater } from "@/lib/compaction/period-rule";
import { computeCutoff } from "../eligibility/cutoff";

const DAY_MS = 86_400_000;

function everyAge(): CompactionAge[] {
  const ages: CompactionAge[] = [];
  for (let value = AGE_LIMITS.weeks.min; value <= AGE_LIMITS.weeks.max; value += 1) ages.push({ value, unit: "weeks" });
  for (let value = AGE_LIMITS.months.min; value <= AGE_LIMITS.months.max; value += 1) ages.push({ value, unit: "months" });
  return ages;
}

function everyDayOf(year: number): number[] {
  const days: number[] = [];
  // Late in the day, so the clamped-day months are exercised with a time part too.
  for (let at = Date.UTC(year, 0, 1, 23, 30); at < Date.UTC(year + 1, 0, 1); at += DAY_MS) days.push(at);
  return days;
}

function parseLabel(label: string): [CompactionAge, CompactionAge] {
  const [a, b] = label.split(" -> ").map((part) => {
    const [value, unit] = part.split(" ");
    return { value: Number(value), unit } as CompactionAge;
  });
  if (!a || !b) throw new Error(`bad label ${label}`);
  return [a, b];
}

function witnessInCycle(label: string): boolean {
  const [approved, next] = parseLabel(label);
  for (let at = Date.UTC(2000, 0, 1, 23, 30); at < Date.UTC(2400, 0, 1); at += DAY_MS) {
    if (computeCutoff({ nowMs: at, age: next }) > computeCutoff({ nowMs: at, age: approved })) return true;
  }
  return false;
}

describe("cutoffCanMoveLater", () => {
  it("[TPR-PREP-02] for every pair of ages and every day of a leap and a common year, a later cutoff on that day needs preparation again, and every pair the rule flags has a witness date", () => {
    const ages = everyAge();
    const n = ages.length;
    // witnessed[i * n + j]: on some day, the cutoff of ages[j] is later than that of ages[i].
    const witnessed = new Uint8Array(n * n);
    const cutoffs = new Float64Array(n);
    for (const nowMs of [...everyDayOf(2024), ...everyDayOf(2026)]) {
      ages.forEach((age, k) => (cutoffs[k] = computeCutoff({ nowMs, age })));
      for (let i = 0; i < n; i += 1) {
        const approved = cutoffs[i] ?? 0;
        const row = i * n;
        for (let j = 0; j < n; j += 1) if ((cutoffs[j] ?? 0) > approved) witnessed[row + j] = 1;
      }
    }
    const missed: string[] = [];
    const extra: string[] = [];
    for (let i = 0; i < n; i += 1) {
      for (let j = 0; j < n; j += 1) {
        const approved = ages[i] as CompactionAge;
        const next = ages[j] as CompactionAge;
        const rule = cutoffCanMoveLater({ approved, next });
        const seen = witnessed[i * n + j] === 1;
        const label = `${approved.value} ${approved.unit} -> ${next.value} ${next.unit}`;
        if (seen && !rule) missed.push(label);
        if (rule && !seen) extra.push(label);
      }
    }
    expect(missed).toEqual([]);
    // Pairs the rule flags without a witness in those two years (spans that
    // only occur across other leap patterns) must show one somewhere in the
    // 400-year Gregorian cycle: the rule never asks for preparation in vain.
    expect(extra.filter((label) => !witnessInCycle(label))).toEqual([]);
  });

  it("[TPR-PREP-02] the cases of the review: months to the weeks that match them on some days", () => {
    expect(cutoffCanMoveLater({ approved: { value: 1, unit: "months" }, next: { value: 4, unit: "weeks" } })).toBe(true);
    expect(cutoffCanMoveLater({ approved: { value: 6, unit: "months" }, next: { value: 26, unit: "weeks" } })).toBe(true);
    expect(cutoffCanMoveLater({ approved: { value: 3, unit: "months" }, next: { value: 13, unit: "weeks" } })).toBe(true);
    // 5 weeks (35 days) is longer than any month: lengthening, the approval carries over.
    expect(cutoffCanMoveLater({ approved: { value: 1, unit: "months" }, next: { value: 5, unit: "weeks" } })).toBe(false);
    // 4 weeks -> 1 month: a month is never shorter than 28 days.
    expect(cutoffCanMoveLater({ approved: { value: 4, unit: "weeks" }, next: { value: 1, unit: "months" } })).toBe(false);
  });
});
