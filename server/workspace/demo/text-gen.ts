// Generators for the bulky text tools produce: source files, test and build
// logs, unified diffs. They look like real agent work so the demo's sizes
// and the compaction estimates behave like production data.
import type { Repo } from "./corpus";
import type { Rng } from "./prng";

const IDENT = ["order", "cart", "invoice", "ledger", "rate", "entry", "feature", "batch", "config", "request", "session", "amount"];

function ident(rng: Rng): string {
  return rng.pick(IDENT);
}

function tsBlock(rng: Rng, repo: Repo, i: number): string[] {
  const name = `${rng.pick(repo.symbols)}${i}`;
  const a = ident(rng);
  return [
    `export function ${name}(${a}: ${a[0]!.toUpperCase()}${a.slice(1)}Input): Result<${a[0]!.toUpperCase()}${a.slice(1)}> {`,
    `  const parsed = ${a}Schema.safeParse(${a});`,
    `  if (!parsed.success) return { ok: false, error: describe(parsed.error) };`,
    `  const total = parsed.data.items.reduce((sum, item) => sum + item.priceCents * item.quantity, 0);`,
    `  log.debug({ op: "${name}", count: parsed.data.items.length }, "computed total");`,
    `  return { ok: true, value: { ...parsed.data, totalCents: Math.round(total) } };`,
    `}`,
    ``,
  ];
}

function goBlock(rng: Rng, repo: Repo, i: number): string[] {
  const name = `${rng.pick(repo.symbols)}${i}`;
  const a = ident(rng);
  return [
    `// ${name} validates the ${a} and writes it in one transaction.`,
    `func (s *Service) ${name}(ctx context.Context, ${a} *${a[0]!.toUpperCase()}${a.slice(1)}) error {`,
    `\tif err := ${a}.Validate(); err != nil {`,
    `\t\treturn fmt.Errorf("${name}: %w", err)`,
    `\t}`,
    `\treturn s.db.InTx(ctx, func(tx pgx.Tx) error {`,
    `\t\t_, err := tx.Exec(ctx, "insert into ${a}s (id, amount_minor) values ($1, $2)", ${a}.ID, ${a}.AmountMinor)`,
    `\t\treturn err`,
    `\t})`,
    `}`,
    ``,
  ];
}

function pyBlock(rng: Rng, repo: Repo, i: number): string[] {
  const name = `${rng.pick(repo.symbols)}_${i}`.toLowerCase();
  const a = ident(rng);
  return [
    `def ${name}(${a}s: pd.DataFrame, config: TrainConfig) -> pd.DataFrame:`,
    `    """Builds ${a} features; keeps the input order stable."""`,
    `    frame = ${a}s.copy()`,
    `    frame["${a}_log"] = np.log1p(frame["${a}"].clip(lower=0))`,
    `    frame = frame.dropna(subset=config.required_columns)`,
    `    logger.info("built %d rows for ${a}", len(frame))`,
    `    return frame`,
    ``,
  ];
}

function tfBlock(rng: Rng, repo: Repo, i: number): string[] {
  const kind = rng.pick(repo.symbols);
  return [
    `resource "${kind}" "svc_${i}" {`,
    `  name        = "\${var.env}-svc-${i}"`,
    `  tags        = merge(local.tags, { component = "svc-${i}" })`,
    `  depends_on  = [module.network]`,
    `}`,
    ``,
  ];
}

/** Source text of roughly `lines` lines in the repository's language. */
export function sourceText(rng: Rng, repo: Repo, lines: number): string {
  const block = { typescript: tsBlock, go: goBlock, python: pyBlock, terraform: tfBlock }[repo.language];
  const out: string[] = [];
  for (let i = 1; out.length < lines; i++) out.push(...block(rng, repo, i));
  return out.slice(0, lines).join("\n");
}

/** Test runner output with passes, skips and optionally one failure. */
export function testLog(rng: Rng, repo: Repo, options: { tests: number; failing: boolean }): string {
  const out: string[] = [`$ ${repo.testCommand}`, ""];
  for (let i = 0; i < options.tests; i++) {
    const file = rng.pick(repo.files);
    const ms = rng.int(1, 900);
    const failed = options.failing && i === Math.floor(options.tests / 2);
    out.push(`${failed ? " FAIL" : " ✓"} ${file} > ${rng.pick(repo.symbols)} ${rng.pick(["handles empty input", "rounds half even", "keeps order", "rejects invalid ids", "retries on 503"])} (${ms}ms)`);
    if (failed) {
      out.push(
        `   AssertionError: expected 10.01 to equal 10.00`,
        `    - Expected: 1000`,
        `    + Received: 1001`,
        `    at ${repo.root}/${file}:${rng.int(10, 300)}:${rng.int(3, 40)}`,
      );
    }
  }
  out.push("", ` Test Files  ${Math.ceil(options.tests / 4)} passed`, ` Tests  ${options.tests - (options.failing ? 1 : 0)} passed${options.failing ? " | 1 failed" : ""}`);
  out.push(` Duration  ${rng.int(1, 40)}.${rng.int(10, 99)}s`);
  return out.join("\n");
}

/** A verbose build or install log of about `bytes` characters. */
export function bulkLog(rng: Rng, repo: Repo, bytes: number): string {
  const out: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const line =
      `${String(i).padStart(6, "0")} ${rng.pick(["info", "info", "verbose", "http fetch", "timing", "warn"])} ` +
      `${rng.pick(repo.packages)}@${rng.int(0, 9)}.${rng.int(0, 40)}.${rng.int(0, 20)} ` +
      `${rng.pick(["resolved", "extracted", "linked", "cache hit", "compiled", "GET 200"])} ${repo.root}/${rng.pick(repo.files)} ${rng.int(1, 999)}ms`;
    out.push(line);
    size += line.length + 1;
  }
  return out.join("\n");
}

/** A unified diff replacing a few lines of a file. */
export function unifiedDiff(rng: Rng, path: string, oldText: string, newText: string): string {
  const start = rng.int(5, 180);
  const oldLines = oldText.split("\n");
  const newLines = newText.split("\n");
  return [
    `--- a/${path}`,
    `+++ b/${path}`,
    `@@ -${start},${oldLines.length} +${start},${newLines.length} @@`,
    ...oldLines.map((l) => `-${l}`),
    ...newLines.map((l) => `+${l}`),
  ].join("\n");
}

/** Matching file paths with line numbers, the way a code search tool lists them. */
export function searchHits(rng: Rng, repo: Repo, count: number): string[] {
  const hits: string[] = [];
  for (let i = 0; i < count; i++) {
    const file = rng.pick(repo.files);
    hits.push(`${file}:${rng.int(1, 400)}`);
  }
  return hits;
}
