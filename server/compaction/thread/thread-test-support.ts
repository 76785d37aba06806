// Builds the cleanup thread's bundle into a temp dir for the tests that run a
// slice on a real worker thread (no previous `npm run build` needed).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach } from "vitest";
import { createTestDb, type TestDb } from "@/server/db/test-db";
import { buildPassThreadBundle } from "@/scripts/lib/pass-thread-bundle";

export async function buildTestBundle(): Promise<{ bundlePath: string; remove(): void }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ws-pass-thread-"));
  const bundlePath = path.join(dir, "pass-thread.cjs");
  await buildPassThreadBundle({ outFile: bundlePath });
  return { bundlePath, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/** Registers the hooks of a thread test file: one bundle for the file, a fresh temp database per test. */
export function threadTestBed(prefix: string): { readonly t: TestDb; readonly bundlePath: string } {
  let bundle: Awaited<ReturnType<typeof buildTestBundle>> | null = null;
  let db: TestDb | null = null;
  beforeAll(async () => {
    bundle = await buildTestBundle();
  });
  afterAll(() => bundle?.remove());
  beforeEach(() => {
    db = createTestDb(prefix);
  });
  afterEach(() => db?.close());
  return {
    get t() {
      if (!db) throw new Error("no test database outside a test");
      return db;
    },
    get bundlePath() {
      if (!bundle) throw new Error("the thread bundle is built before the tests");
      return bundle.bundlePath;
    },
  };
}
