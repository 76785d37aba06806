import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openDatabase } from "@/server/db/client";
import { createTestDb, type TestDb } from "@/server/db/test-db";
import { fingerprint, sampleFixture } from "@/server/workspace/fixture/test-support";

let t: TestDb | undefined;
afterEach(() => t?.close());

function runImport(db: TestDb, name: string, text: string) {
  const file = path.join(db.dir, name);
  fs.writeFileSync(file, text);
  // Exactly what `npm run db:import -- FILE` runs (server-only needs the react-server condition).
  const result = spawnSync(path.resolve("node_modules/.bin/tsx"), ["--conditions=react-server", "scripts/db-import.ts", "--", file], {
    env: { ...process.env, DATABASE_URL: `file:${db.file}` },
    encoding: "utf8",
  });
  return { ...result, file };
}

describe("npm run db:import", () => {
  it("imports a fixture and then refuses a bad one with one readable line, leaving the database unchanged", () => {
    t = createTestDb();
    t.sqlite.close(); // the CLI opens its own connection
    const ok = runImport(t, "ok.json", sampleFixture());
    expect(ok.status).toBe(0);
    expect(ok.stdout).toMatch(/Imported .*ok\.json: 2 tasks, 2 sessions, 2 turns, 2 messages, 1 queued messages, 2 runs/);

    const check = openDatabase({ file: t.file });
    const before = fingerprint(check.sqlite);
    check.sqlite.close();

    const bad = runImport(t, "bad.json", sampleFixture({ prefix: "n-" }).replace('"turnId": "n-u1", "authorType": "agent"', '"turnId": "ghost", "authorType": "agent"'));
    expect(bad.status).toBe(1);
    const lines = bad.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toBe(
      `db:import: ${bad.file}: tasks[0].sessions[0].messages[1].turnId: unknown turn "ghost" (not a turn of session "n-s1")`,
    );
    expect(bad.stderr).not.toMatch(/\n\s+at /);

    const after = openDatabase({ file: t.file });
    expect(fingerprint(after.sqlite)).toEqual(before);
    after.sqlite.close();
  });
});
