// The demo's made-up storage history: 120 daily samples with growth and a
// few maintenance operations, the same for the same seed, ending at the
// real database's sizes; and the demo seed writes it once, before a real
// sample, into an empty history only.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { fitGrowth } from "@/lib/database/forecast";
import { openSqliteDb } from "@/server/db/sqlite-db";
import { demoHistory } from "./demo-history";
import { seedDemoHistoryIfEmpty } from "./demo-seed";
import { toWireSample } from "./row";
import { createSqliteHistoryStore } from "./sqlite-store";
import type { SampleInsert } from "./store";

const NOW = Date.UTC(2026, 6, 15, 9, 30);
const REAL: SampleInsert = {
  atMs: NOW,
  sampleKey: "daily:2026-07-15",
  trigger: "daily",
  operationId: null,
  method: "dbstat",
  totalBytes: 60_000_000,
  usedBytes: 58_000_000,
  freeBytes: 2_000_000,
  messagesBytes: 40_000_000,
  checkpointsBytes: 15_000_000,
  otherBytes: 3_000_000,
  reclaimedBytes: null,
  diskFreeBytes: 50_000_000_000,
  tables: JSON.stringify([["messages", 900, 40_000_000], ["checkpoints", 300, 12_000_000], ["writes", 500, 3_000_000], ["users", 2, 3_000_000]]),
};

let dir: string | null = null;
afterEach(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  dir = null;
});

describe("demo storage history", () => {
  it("has 120 daily samples before the real one, grows, marks its operations and ends at the real sizes", () => {
    const samples = demoHistory({ real: REAL, seed: 7 });
    const daily = samples.filter((s) => s.trigger === "daily");
    expect(daily).toHaveLength(120);
    expect(new Set(daily.map((s) => s.sampleKey)).size).toBe(120);
    expect(samples.every((s) => s.atMs < NOW)).toBe(true);
    expect(samples.map((s) => s.atMs)).toEqual([...samples.map((s) => s.atMs)].sort((a, b) => a - b));
    expect(samples.filter((s) => s.trigger !== "daily").map((s) => s.trigger)).toEqual(["compaction", "checkpoint_cleanup", "vacuum", "compaction"]);
    const last = samples[samples.length - 1]!;
    expect(last.messagesBytes).toBeCloseTo(REAL.messagesBytes, -3);
    expect(last.checkpointsBytes).toBeCloseTo(REAL.checkpointsBytes, -3);
    // Each operation's sample shows the space it gave back.
    samples.forEach((sample, i) => {
      const before = samples[i - 1];
      if (sample.trigger === "compaction") expect(sample.messagesBytes).toBeLessThan(before!.messagesBytes * 0.8);
      if (sample.trigger === "checkpoint_cleanup") expect(sample.checkpointsBytes).toBeLessThan(before!.checkpointsBytes * 0.8);
      if (sample.trigger === "vacuum") expect(sample.freeBytes).toBe(0);
      if (sample.trigger !== "daily") expect(sample.reclaimedBytes).toBeGreaterThan(0);
      expect(sample.usedBytes).toBe(sample.messagesBytes + sample.checkpointsBytes + sample.otherBytes);
      expect(toWireSample({ id: i + 1, ...sample }, { withTables: true })).not.toBeNull();
    });
    // The forecast reads growth from it.
    const fit = fitGrowth(samples.map((s) => ({ atMs: s.atMs, usedBytes: s.usedBytes, trigger: s.trigger })));
    expect(fit.state === "fit" && fit.bytesPerDay).toBeGreaterThan(0);
    expect(demoHistory({ real: REAL, seed: 7 })).toEqual(samples);
    expect(demoHistory({ real: REAL, seed: 8 })).not.toEqual(samples);
  });

  it("the demo seed writes it once, with a real sample of the database last", async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "demo-history-"));
    const file = path.join(dir, "workspace.db");
    openSqliteDb({ file }).closeNow();
    expect(await seedDemoHistoryIfEmpty({ file, nowMs: NOW, seed: 1 })).toBe(125);
    expect(await seedDemoHistoryIfEmpty({ file, nowMs: NOW, seed: 1 })).toBe(0);
    const db = openSqliteDb({ file });
    try {
      const rows = await createSqliteHistoryStore(db).listSince({ fromMs: 0 });
      expect(rows).toHaveLength(125);
      const last = toWireSample(rows[rows.length - 1]!, { withTables: true })!;
      expect(last).toMatchObject({ atMs: NOW, trigger: "daily", method: "dbstat" });
      expect(last.tables!.map((t) => t.name)).toContain("users");
    } finally {
      db.closeNow();
    }
  });
});
