// #26 item 6: PostgreSQL secrets never go on a child's command line, where
// every user of the machine can read them (ps, /proc/PID/cmdline). Stand-in
// pg_dump / vacuumdb / pg_restore programs on PATH record what they were
// started with: their argv, the passfile libpq would read and its mode.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createPgTestDb, TEST_POSTGRES_URL, type PgTestDb } from "@/server/db/pg/test-db";
import { createPgMaintenanceStore } from "./pg-store";
import { runPgTool, splitConnectionUrl } from "./pg-tools";

const SECRET = "s3cr:et\\pass@word";
const SECRET_URL = `postgresql://retention:${encodeURIComponent(SECRET)}@db.internal:5432/workspace?sslmode=require`;

type Recorded = { argv: string[]; passfile: string | null; mode: number | null; pgpassword: string | null };

let dir: string;
let savedPath: string | undefined;

function installFakeTools(): void {
  for (const tool of ["pg_dump", "pg_restore", "vacuumdb"]) {
    const script = path.join(dir, "bin", tool);
    // Records argv and the passfile as the child saw them, then exits 0 (pg_restore --list prints a plausible listing).
    fs.writeFileSync(
      script,
      `#!/usr/bin/env node
const fs = require("fs");
const file = process.env.PGPASSFILE || null;
let passfile = null, mode = null;
if (file) { passfile = fs.readFileSync(file, "utf8"); mode = fs.statSync(file).mode & 0o777; }
fs.appendFileSync(${JSON.stringify(path.join(dir, "calls.jsonl"))}, JSON.stringify({ argv: process.argv.slice(1), passfile, mode, pgpassword: process.env.PGPASSWORD || null, file }) + "\\n");
if (process.argv.includes("--list")) console.log("1; 0 0 TABLE DATA public messages postgres");
`,
      { mode: 0o755 },
    );
  }
}

function calls(): (Recorded & { file: string | null })[] {
  const file = path.join(dir, "calls.jsonl");
  if (!fs.existsSync(file)) return [];
  return fs.readFileSync(file, "utf8").trim().split("\n").map((line) => JSON.parse(line));
}

function expectNoSecretOnCommandLine(recorded: Recorded[]): void {
  expect(recorded.length).toBeGreaterThan(0);
  for (const call of recorded) {
    const argv = call.argv.join(" ");
    expect(argv).not.toContain(SECRET);
    expect(argv).not.toContain(encodeURIComponent(SECRET));
    expect(argv).not.toContain("s3cr");
  }
}

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "pg-tools-"));
  fs.mkdirSync(path.join(dir, "bin"));
  installFakeTools();
  savedPath = process.env.PATH;
  process.env.PATH = `${path.join(dir, "bin")}:${savedPath}`;
});
afterEach(() => {
  process.env.PATH = savedPath;
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("PostgreSQL client programs", () => {
  it("[#26-6] the URL's password goes to a 0600 passfile, never argv, and the file is gone afterwards", async () => {
    await runPgTool("pg_dump", { connection: SECRET_URL, args: ["--format=custom", "--file=/dev/null"] });
    const [call] = calls();
    expectNoSecretOnCommandLine([call!]);
    expect(call!.argv).toContain("--dbname=postgresql://retention@db.internal:5432/workspace?sslmode=require");
    expect(call!.mode).toBe(0o600);
    // libpq's passfile syntax: `:` and `\` escaped, any host/port/db/user.
    expect(call!.passfile).toBe("*:*:*:*:s3cr\\:et\\\\pass@word\n");
    expect(fs.existsSync(call!.file!)).toBe(false);
  });

  it("[#26-6] a password given as a query parameter is taken out too, and a server PGPASSWORD does not override it", async () => {
    process.env.PGPASSWORD = "from-the-server-env";
    try {
      await runPgTool("vacuumdb", { connection: `postgres://u@/db?host=/run/pg&password=${encodeURIComponent(SECRET)}&sslmode=disable`, args: ["--analyze"] });
    } finally {
      delete process.env.PGPASSWORD;
    }
    const [call] = calls();
    expectNoSecretOnCommandLine([call!]);
    expect(call!.argv).toContain("--dbname=postgres://u@/db?host=/run/pg&sslmode=disable");
    expect(call!.pgpassword).toBeNull();
    expect(call!.passfile).toContain("s3cr\\:et");
  });

  it("a URL without a password leaves the child's own password sources alone", async () => {
    await runPgTool("pg_restore", { connection: "postgresql://u@localhost/db", args: ["--list", "x"] });
    expect(calls()[0]!.passfile).toBeNull();
    expect(splitConnectionUrl("postgresql://u@localhost/db")).toEqual({ url: "postgresql://u@localhost/db", password: null });
    expect(splitConnectionUrl("postgresql://u:@h/d")).toEqual({ url: "postgresql://u@h/d", password: "" });
  });
});

describe.skipIf(!TEST_POSTGRES_URL)("the PostgreSQL maintenance store's children", () => {
  let db: PgTestDb;
  beforeEach(async () => {
    db = await createPgTestDb();
  });
  afterEach(() => db.close());

  it("[#26-6] pg_dump, pg_restore and every per-table vacuumdb get the secret through the passfile only", async () => {
    const store = createPgMaintenanceStore({ db: db.db, url: SECRET_URL, env: { PG_BACKUP_VERIFY_RESTORE: "0" } });
    const file = path.join(dir, "backup.dump");
    await store.snapshotInto(file);
    expect(await store.vacuum({ busyTimeoutMs: 1000 })).toBe("done");
    await store.restoreInPlace!(file);
    const recorded = calls();
    expect(recorded.filter((c) => path.basename(c.argv[0] ?? "") === "vacuumdb").length).toBeGreaterThan(3);
    expectNoSecretOnCommandLine(recorded);
    for (const call of recorded) expect(call.passfile).toContain("s3cr\\:et");
  });
});
