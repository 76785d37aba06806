// npm run demo: an empty storage history gets the demo's 120 made-up days,
// ending with a real sample of the database as it is now.
import { openSqliteDb } from "@/server/db/sqlite-db";
import { createSqliteMaintenanceStore } from "../sqlite-store";
import { demoHistory } from "./demo-history";
import { buildSample, dailyKey } from "./sample";
import { diskFreeBytes, MAX_SAMPLES } from "./sampler";
import { createSqliteHistoryStore } from "./sqlite-store";

const DAY_MS = 24 * 60 * 60 * 1000;

/** Seeds the history of the SQLite file `file` when it has none; returns how many samples were written. */
export async function seedDemoHistoryIfEmpty(options: { file: string; nowMs: number; seed: number; days?: number }): Promise<number> {
  const db = openSqliteDb({ file: options.file });
  try {
    const history = createSqliteHistoryStore(db);
    if (await history.latest()) return 0;
    const stats = await createSqliteMaintenanceStore(db).databaseStats();
    const real = buildSample(stats, {
      atMs: options.nowMs,
      sampleKey: dailyKey(options.nowMs),
      trigger: "daily",
      operationId: null,
      reclaimedBytes: null,
      diskFreeBytes: await diskFreeBytes(options.file),
      engine: "sqlite",
    });
    const samples = [...demoHistory({ real, days: options.days, seed: options.seed }), real];
    const prune = { pruneBeforeMs: options.nowMs - 400 * DAY_MS, maxRows: MAX_SAMPLES };
    await db.transaction(async () => {
      for (const sample of samples) await history.insertSample(sample, prune);
    });
    return samples.length;
  } finally {
    await db.close();
  }
}
