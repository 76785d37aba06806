// Pure planning helpers of the checkpoint channel benchmark (tested without
// running any case): the paired case matrix with alternating mode order, the
// full-payload size estimate, and the pair digest verdict.
export type BenchCase = { mode: "full" | "delta"; snapshotFrequency: number; turns: number; payloadBytes: number };
export type PlannedPair = { repetition: number; turns: number; skipped: "size_cap" | null; estimatedFullBytes: number; cases: BenchCase[] };

/**
 * Estimated cumulative bytes full mode serializes: every checkpoint of turn k
 * holds all 4k messages so far, five checkpoints per turn, about 320 bytes of
 * serialized message envelope each plus the tool payload per turn
 * (calibrated on a 100-turn run: 33.9 MB measured).
 */
export function estimateFullBytes(turns: number, payloadBytes: number): number {
  const perTurn = 4 * 320 + payloadBytes;
  return 5 * perTurn * ((turns * (turns + 1)) / 2);
}

export type PlanOptions = {
  turns: number[];
  payloadBytes: number;
  frequencies: number[];
  repetitions: number;
  maxFullBytes: number;
  allowLarge: boolean;
  /** Default both. Delta-only diagnostics bypass the full-payload cap: size them explicitly. */
  modes?: ("full" | "delta")[];
};

/** Every (repetition, turns) group holds full plus each delta frequency; the first mode flips between consecutive groups. */
export function planPairs(options: PlanOptions): PlannedPair[] {
  const pairs: PlannedPair[] = [];
  let runIndex = 0;
  for (let repetition = 0; repetition < options.repetitions; repetition += 1) {
    for (const turns of options.turns) {
      const estimatedFullBytes = estimateFullBytes(turns, options.payloadBytes);
      const modes = options.modes ?? ["full", "delta"];
      const full: BenchCase[] = modes.includes("full")
        ? [{ mode: "full", snapshotFrequency: options.frequencies[0]!, turns, payloadBytes: options.payloadBytes }]
        : [];
      const deltas = modes.includes("delta")
        ? options.frequencies.map((f): BenchCase => ({ mode: "delta", snapshotFrequency: f, turns, payloadBytes: options.payloadBytes }))
        : [];
      if (full.length > 0 && estimatedFullBytes > options.maxFullBytes && !options.allowLarge) {
        pairs.push({ repetition, turns, skipped: "size_cap", estimatedFullBytes, cases: [...full, ...deltas] });
        continue;
      }
      const cases = runIndex % 2 === 0 ? [...full, ...deltas] : [...deltas, ...full];
      runIndex += 1;
      pairs.push({ repetition, turns, skipped: null, estimatedFullBytes, cases });
    }
  }
  return pairs;
}

type CaseResult = { mode: "full" | "delta"; ok?: unknown; digest?: unknown };

/** Rows that fail because of the pair: any delta digest differing from full fails that row and the full row. */
export function pairDigestFailures(results: CaseResult[]): boolean[] {
  const full = results.find((r) => r.mode === "full");
  const differs = results.map((r) => full !== undefined && r.ok === true && full.ok === true && r.digest !== full.digest);
  const anyDiffers = differs.some(Boolean);
  return results.map((r, i) => differs[i]! || (r.mode === "full" && anyDiffers));
}
