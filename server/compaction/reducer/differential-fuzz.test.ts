// The differential fuzz of Messages compaction on stored bytes (issue 25):
// a few thousand generated rows per family, each judged by the SQL path and
// the JS reducer, against the model's independent expectation, then written
// by the pipeline and read back byte for byte. scripts/bench/compaction-fuzz.ts
// runs the same at 100k+ rows per family.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDifferential, type Differential } from "./differential-test-support";
import { FAMILIES, type Family } from "./hostile-rows-test-support";
import { GENERATED_CORPUS_TIMEOUT_MS } from "./sql-judge-test-support";

const ROWS: Record<Family, number> = { valid: 3000, invalid_utf8: 3000, blob: 2000, nul_keys: 3000, trailing: 2000, deep: 2000, wide: 2000 };

let fuzz: Differential;
beforeAll(() => {
  fuzz = openDifferential();
});
afterAll(() => fuzz.close());

describe("Messages compaction on any stored bytes", () => {
  for (const family of FAMILIES) {
    it(`[TPR-RED-10][TPR-RED-14][TPR-RED-16] ${family}: the SQL path, the JS reducer and the expectation agree on every row, and the stored bytes are the expectation's`, async () => {
      const { stats, differences } = await fuzz.run(family, ROWS[family], { seed: 25 });
      expect(differences).toEqual([]);
      expect(stats.differences).toBe(0);
      expect(stats.rows).toBe(ROWS[family]);
      if (family === "blob") {
        expect(stats.skipped.not_text).toBe(ROWS.blob);
        return;
      }
      // Never vacuous: each family compacts rows, and the SQL path judges some itself.
      expect(stats.changed, JSON.stringify(stats)).toBeGreaterThan(ROWS[family] / (family === "trailing" ? 20 : 10));
      if (family !== "trailing") expect(stats.sqlChanged, JSON.stringify(stats)).toBeGreaterThan(ROWS[family] / 20);
      if (family === "deep" || family === "trailing") expect(stats.skipped.malformed, JSON.stringify(stats)).toBeGreaterThan(ROWS[family] / 10);
    }, GENERATED_CORPUS_TIMEOUT_MS);
  }
});
