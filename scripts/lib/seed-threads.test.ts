import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openSqliteDb } from "@/server/db/sqlite-db";
import { readThreadCheckpoints } from "@/server/checkpoints/cleanup/thread-checkpoints";
import { createSqliteCheckpointStore } from "@/server/checkpoints/sqlite-store";
import { seedDemoThreadsIfEmpty } from "./seed-threads";

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "seed-threads-"));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe.each(["full", "delta"] as const)("demo agent threads (%s mode)", (mode) => {
  it("seeds the long, regenerated, branched and legacy threads through the thread service once, with reclaimable checkpoints for cleanup", async () => {
    const env = { ...process.env, DATABASE_URL: `file:${path.join(dir, "workspace.db")}`, CHECKPOINT_CHANNEL_MODE: mode };
    const first = await seedDemoThreadsIfEmpty("small", env);
    if (!first.seeded) throw new Error("expected a seed on an empty database");
    expect(first.result.threads.map((t) => t.role)).toEqual(["long", "regenerated", "branched", "legacy"]);
    // Only when no thread is stored (like the workspace seed).
    expect(await seedDemoThreadsIfEmpty("small", env)).toEqual({ seeded: false, existing: 4 });

    const db = openSqliteDb({ file: path.join(dir, "workspace.db") });
    try {
      const store = createSqliteCheckpointStore(db);
      const views = new Map<string, Awaited<ReturnType<typeof readThreadCheckpoints>>>();
      for (const t of first.result.threads) views.set(t.role, await readThreadCheckpoints({ store, threadId: t.threadId, handles: { ttlDays: 30, nowMs: Date.now() } }));
      const view = (role: string) => views.get(role)!;
      const verdicts = (role: string) => view(role).turns.flatMap((t) => t.checkpoints).map((c) => (c.verdict.status === "reclaimable" ? c.verdict.form : null));
      expect(view("long").turns).toHaveLength(8);
      // Written with admission on: only the newest duration leaf is left, for the next run.
      expect(verdicts("long").filter(Boolean)).toEqual(["next_run"]);
      // Written without it: every earlier run's duration leaf is a link cleanup grafts away.
      expect(verdicts("legacy").filter((f) => f === "graft")).toHaveLength(2);
      const regenerated = view("regenerated");
      if (mode === "full") {
        // Full mode forks on regenerate: the replaced turns stay behind as abandoned branches.
        expect(regenerated.turns.some((t) => !t.current)).toBe(true);
        // Written a month and more ago: its handles expired, so the abandoned tips are reclaimable.
        expect(verdicts("regenerated")).toContain("branch_tip");
        expect(regenerated.turns.flatMap((t) => t.checkpoints).filter((c) => c.handle).every((c) => c.handle!.expired)).toBe(true);
        // The fresh threads' handles are held.
        expect(view("long").turns.flatMap((t) => t.checkpoints).filter((c) => c.handle).every((c) => !c.handle!.expired)).toBe(true);
      } else {
        // Delta processes linearize a regenerate onto the head: nothing is abandoned.
        expect(regenerated.turns.every((t) => t.current)).toBe(true);
      }
      // The branch starts from a copy of the conversation (a rewrite), then runs on its own.
      const branched = view("branched");
      expect(branched.turns[0]!.checkpoints[0]!.kind).toBe("rewrite");
      expect(branched.turns.filter((t) => t.kind === "run")).toHaveLength(3);
    } finally {
      db.closeNow();
    }
  });
});
