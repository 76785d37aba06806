// Rule 1 of preparation (TPR-PREP-02): a period change needs preparation
// again whenever, on SOME date, the new cutoff is later than the approved one
// (it would delete payloads the approved policy kept). Comparing the two
// cutoffs at the instant of saving is not enough: 1 month and 4 weeks agree
// on 1 March and differ by three days on 31 March.
//
// Days and weeks are exact (a week is 7 days). A span of N calendar months, with the day
// clamped as the cutoff does it (31 March - 1 month = end of February), varies
// with the date; its shortest and longest lengths over the 400-year Gregorian
// cycle bound every date, so the comparison holds for all of them. Shared by
// the server's policy update and the card, so both ask for the same choice.
import { fixedPeriodDays, type Period } from "@/lib/time/period";
import { AGE_LIMITS } from "./policy";

type MonthSpans = { shortestDays: Int32Array; longestDays: Int32Array };

let spans: MonthSpans | null = null;

function daysInMonth(year: number, monthIndex: number): number {
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  if (monthIndex === 1) return leap ? 29 : 28;
  return monthIndex === 3 || monthIndex === 5 || monthIndex === 8 || monthIndex === 10 ? 30 : 31;
}

/** Shortest and longest span, in days, of 1..120 months ending on any date (computed once). */
function monthSpans(): MonthSpans {
  if (spans) return spans;
  const max = AGE_LIMITS.months.max;
  // One full cycle plus a lead-in of `max` months so every window is complete.
  const cycle = 400 * 12;
  const lengths = new Int32Array(cycle + max);
  const prefix = new Int32Array(cycle + max + 1);
  for (let i = 0; i < cycle + max; i += 1) {
    const total = 2000 * 12 - max + i;
    const days = daysInMonth(Math.floor(total / 12), total % 12);
    lengths[i] = days;
    prefix[i + 1] = (prefix[i] ?? 0) + days;
  }
  const at = (array: Int32Array, index: number): number => array[index] ?? 0;
  const shortestDays = new Int32Array(max + 1);
  const longestDays = new Int32Array(max + 1);
  for (let months = 1; months <= max; months += 1) {
    let shortest = Infinity;
    let longest = 0;
    for (let end = max; end < cycle + max; end += 1) {
      // Months end-months .. end-1 lie fully before the date's month `end`.
      const whole = at(prefix, end) - at(prefix, end - months);
      // Day 1..28 never clamps; a later day clamps to the shorter earlier month
      // and lengthens the span by the difference.
      const clamp = Math.max(0, at(lengths, end) - at(lengths, end - months));
      shortest = Math.min(shortest, whole);
      longest = Math.max(longest, whole + clamp);
    }
    shortestDays[months] = shortest;
    longestDays[months] = longest;
  }
  spans = { shortestDays, longestDays };
  return spans;
}

function shortestDays(age: Period): number {
  return fixedPeriodDays(age) ?? monthSpans().shortestDays[age.value] ?? 0;
}

function longestDays(age: Period): number {
  return fixedPeriodDays(age) ?? monthSpans().longestDays[age.value] ?? 0;
}

/**
 * True when, for some date, a pass under `next` would use a later cutoff
 * (keep less) than one under `approved`: then the change deletes payloads
 * the approval did not cover and preparation must be repeated.
 */
export function cutoffCanMoveLater(options: { approved: Period; next: Period }): boolean {
  const { approved, next } = options;
  if (approved.unit === next.unit) return next.value < approved.value;
  return shortestDays(next) < longestDays(approved);
}
