// Summarizes checkpoint-channels JSONL: for each (turns, payload, delta
// frequency) the median over repetitions of delta/full ratios, from pairs
// where both rows succeeded. Prints a Markdown table and one JSON line.
//
//   npx tsx scripts/bench/checkpoint-summarize.ts /tmp/ckpt.jsonl
import fs from "node:fs";

type Row = Record<string, unknown> & { mode: string; turns: number; payloadBytes: number; snapshotFrequency: number; repetition: number; ok: boolean };

const METRICS = [
  "writeTotalMs",
  "writeP50Ms",
  "writeP95Ms",
  "writeP99Ms",
  "warmReadMs",
  "coldReadMs",
  "checkpointBytes",
  "writeBytes",
  "dbWalBytes",
  "peakRssKb",
] as const;

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

function main(): void {
  const files = process.argv.slice(2);
  if (files.length === 0) throw new Error("usage: checkpoint-summarize FILE.jsonl...");
  const rows: Row[] = files.flatMap((f) =>
    fs
      .readFileSync(f, "utf8")
      .split("\n")
      .filter((l) => l.trim() !== "")
      .map((l) => JSON.parse(l) as Row),
  );
  const fullBy = new Map<string, Row>();
  for (const r of rows) if (r.mode === "full" && r.ok) fullBy.set(`${r.repetition}|${r.turns}|${r.payloadBytes}`, r);
  const groups = new Map<string, { turns: number; payloadBytes: number; frequency: number; pairs: [Row, Row][] }>();
  for (const d of rows) {
    if (d.mode !== "delta" || !d.ok) continue;
    const f = fullBy.get(`${d.repetition}|${d.turns}|${d.payloadBytes}`);
    if (!f) continue;
    const key = `${d.turns}|${d.payloadBytes}|${d.snapshotFrequency}`;
    const g = groups.get(key) ?? { turns: d.turns, payloadBytes: d.payloadBytes, frequency: d.snapshotFrequency, pairs: [] };
    g.pairs.push([f, d]);
    groups.set(key, g);
  }
  const summary = [...groups.values()]
    .sort((a, b) => a.turns - b.turns || a.frequency - b.frequency)
    .map((g) => {
      const ratios: Record<string, number> = {};
      for (const m of METRICS) ratios[m] = Number(median(g.pairs.map(([f, d]) => Number(d[m]) / Number(f[m]))).toFixed(4));
      const fullMb = median(g.pairs.map(([f]) => Number(f.checkpointBytes))) / 1e6;
      const deltaMb = median(g.pairs.map(([, d]) => Number(d.checkpointBytes))) / 1e6;
      return { turns: g.turns, payloadBytes: g.payloadBytes, snapshotFrequency: g.frequency, pairs: g.pairs.length, fullCheckpointMb: fullMb, deltaCheckpointMb: deltaMb, ratios };
    });
  const lines = [
    "| turns | payload B | freq | pairs | full ckpt MB | delta ckpt MB | ckpt bytes d/f | DB+WAL d/f | write total d/f | write p95 d/f | warm read d/f | cold read d/f | peak RSS d/f |",
    "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ...summary.map(
      (s) =>
        `| ${s.turns} | ${s.payloadBytes} | ${s.snapshotFrequency} | ${s.pairs} | ${s.fullCheckpointMb.toFixed(1)} | ${s.deltaCheckpointMb.toFixed(1)} | ${s.ratios.checkpointBytes} | ${s.ratios.dbWalBytes} | ${s.ratios.writeTotalMs} | ${s.ratios.writeP95Ms} | ${s.ratios.warmReadMs} | ${s.ratios.coldReadMs} | ${s.ratios.peakRssKb} |`,
    ),
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
  process.stdout.write(`${JSON.stringify({ schema: "checkpoint-summary/v1", ratiosAre: "delta/full", summary })}\n`);
}

main();
