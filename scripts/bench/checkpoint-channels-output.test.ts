// The channel benchmark end to end on a tiny matrix (real child processes,
// real SqliteSaver): its JSONL output and the summarizer that reads it.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";

const dir = path.dirname(new URL(import.meta.url).pathname);
const tsx = path.join(process.cwd(), "node_modules", ".bin", "tsx");
let tmp: string | null = null;
afterEach(() => {
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  tmp = null;
});

function run(script: string, args: string[]) {
  const out = spawnSync(tsx, ["--conditions=react-server", path.join(dir, script), ...args], { encoding: "utf8", timeout: 240_000, env: { ...process.env, NODE_ENV: "production" } });
  if (out.status !== 0) throw new Error(`${script} exited ${String(out.status)}: ${out.stderr.slice(-400)}`);
  return out.stdout;
}

describe("checkpoint channel benchmark output", () => {
  it("[CCM-19] writes one JSONL row per case (paired full/delta, each in a fresh child process, equal digests, alternating order) and the summarizer reports delta/full ratios", { timeout: 300_000 }, () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ckpt-bench-out-"));
    const output = path.join(tmp, "bench.jsonl");
    run("checkpoint-channels.ts", ["--turns", "2,3", "--payload-bytes", "16", "--snapshot-frequencies", "2", "--repetitions", "1", "--output", output, "--tmpdir", tmp]);
    const rows = fs.readFileSync(output, "utf8").trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(rows).toHaveLength(4);
    for (const r of rows) expect(r).toMatchObject({ schema: "checkpoint-channels/v1", ok: true, pid: expect.any(Number) });
    // Each case in a fresh child process: four processes, none of them this one.
    expect(new Set(rows.map((r) => r.pid)).size).toBe(4);
    expect(rows.map((r) => r.pid)).not.toContain(process.pid);
    // Both modes of each pair, the first mode alternating between the pairs, the same materialized digest.
    expect(rows.map((r) => r.mode)).toEqual(["full", "delta", "delta", "full"]);
    for (const turns of [2, 3]) {
      const pair = rows.filter((r) => r.turns === turns);
      expect(new Set(pair.map((r) => r.digest)).size).toBe(1);
    }
    const summary = run("checkpoint-summarize.ts", [output]).trim().split("\n");
    expect(summary[0]).toContain("ckpt bytes d/f");
    const json = JSON.parse(summary.at(-1)!) as { ratiosAre: string; summary: Array<{ turns: number; ratios: Record<string, number> }> };
    expect(json.ratiosAre).toBe("delta/full");
    expect(json.summary.map((s) => s.turns)).toEqual([2, 3]);
    const at3 = rows.filter((r) => r.turns === 3);
    const expected = Number(at3.find((r) => r.mode === "delta")!.checkpointBytes) / Number(at3.find((r) => r.mode === "full")!.checkpointBytes);
    expect(json.summary[1]!.ratios.checkpointBytes).toBeCloseTo(expected, 3);
  });
});
