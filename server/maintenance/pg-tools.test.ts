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

// The same on the real programs against the real server: each stand-in on
// PATH only records the command line it was started with (what ps and
// /proc/PID/cmdline show) and the passfile it was handed, then execs the
// installed program with that same command line, so the dump, the per-table
// VACUUM and the restore really run. (The test cluster may trust its socket
// and so never ask for the password; what reached argv is the point.)
describe.skipIf(!TEST_POSTGRES_URL)("the real pg_dump, vacuumdb and pg_restore", () => {
  let db: PgTestDb;
  let calls: string;
  beforeEach(async () => {
    db = await createPgTestDb();
    calls = path.join(dir, "real-calls");
    fs.mkdirSync(calls);
    const bin = path.join(dir, "real-bin");
    fs.mkdirSync(bin);
    for (const tool of ["pg_dump", "pg_restore", "vacuumdb"]) {
      const real = savedPath!
        .split(":")
        .map((folder) => path.join(folder, tool))
        .find((file) => fs.existsSync(file));
      if (!real) throw new Error(`${tool} is not installed`);
      // argv NUL-separated, then a copy of the passfile and its mode, per call (named by the pid that execs on).
      fs.writeFileSync(
        path.join(bin, tool),
        `#!/bin/sh
printf '%s\\0' "$0" "$@" > ${JSON.stringify(calls)}/$$.argv
if [ -n "$PGPASSFILE" ]; then cat "$PGPASSFILE" > ${JSON.stringify(calls)}/$$.pass; stat -c %a "$PGPASSFILE" > ${JSON.stringify(calls)}/$$.mode; echo "$PGPASSFILE" > ${JSON.stringify(calls)}/$$.file; fi
exec ${JSON.stringify(real)} "$@"
`,
        { mode: 0o755 },
      );
    }
    process.env.PATH = `${bin}:${savedPath}`;
  });
  afterEach(() => db.close());

  /** The test database's URL with a password in it (or the one it already carries). */
  function urlWithPassword(): { url: string; secret: string } {
    const parts = /^(postgres(?:ql)?:\/\/)([^:@/?#]+)(?::([^@/?#]*))?@/.exec(db.url);
    if (!parts) throw new Error("TEST_POSTGRES_URL names no user");
    if (parts[3]) return { url: db.url, secret: decodeURIComponent(parts[3]) };
    return { url: db.url.replace(parts[0], `${parts[1]}${parts[2]}:${encodeURIComponent(SECRET)}@`), secret: SECRET };
  }

  it("[#26-6] a real backup, per-table VACUUM and restore: no child's command line holds the password, each got it in a 0600 passfile removed afterwards", async () => {
    const { url, secret } = urlWithPassword();
    await db.db.exec(`create table canary (v text); insert into canary values ('before')`);
    const store = createPgMaintenanceStore({ db: db.db, url, env: { PG_BACKUP_VERIFY_RESTORE: "0" } });
    const file = path.join(dir, "backup.dump");
    await store.snapshotInto(file);
    expect(fs.readFileSync(file).subarray(0, 5).toString("latin1")).toBe("PGDMP");
    expect(await store.vacuum({ busyTimeoutMs: 5000 })).toBe("done");
    await db.db.exec(`update canary set v = 'after'`);
    await store.restoreInPlace!(file);
    expect(await db.db.query<{ v: string }>(`select v from canary`)).toEqual([{ v: "before" }]);

    const pids = fs.readdirSync(calls).filter((name) => name.endsWith(".argv")).map((name) => name.slice(0, -".argv".length));
    const tools = pids.map((pid) => path.basename(fs.readFileSync(path.join(calls, `${pid}.argv`), "utf8").split("\0")[0]!));
    expect(new Set(tools)).toEqual(new Set(["pg_dump", "vacuumdb", "pg_restore"]));
    expect(tools.filter((tool) => tool === "vacuumdb").length).toBeGreaterThan(3);
    for (const pid of pids) {
      const argv = fs.readFileSync(path.join(calls, `${pid}.argv`), "utf8");
      expect(argv).not.toContain(secret);
      expect(argv).not.toContain(encodeURIComponent(secret));
      // pg_restore --list reads a file and connects nowhere: no connection, no passfile.
      if (!argv.includes("--dbname=")) continue;
      expect(fs.readFileSync(path.join(calls, `${pid}.pass`), "utf8")).toContain(secret.replace(/\\/g, "\\\\").replace(/:/g, "\\:"));
      expect(fs.readFileSync(path.join(calls, `${pid}.mode`), "utf8").trim()).toBe("600");
      expect(fs.existsSync(fs.readFileSync(path.join(calls, `${pid}.file`), "utf8").trim())).toBe(false);
    }
  });
});
