// Test helper: a real SQLite file in a temp directory with migrations applied.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openDatabase, type DbHandle } from "./client";

export type TestDb = DbHandle & { dir: string; close(): void };

export function createTestDb(prefix = "ws-test-"): TestDb {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const handle = openDatabase({ file: path.join(dir, "workspace.db") });
  return {
    ...handle,
    dir,
    close() {
      if (handle.sqlite.open) handle.sqlite.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
