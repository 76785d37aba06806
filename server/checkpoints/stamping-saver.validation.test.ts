// Runs @langchain/langgraph-checkpoint-validation against our saver wrapper
// in both modes. The suite uses Jest-style globals, so they are provided
// before it is imported.
import * as vitest from "vitest";
import "./jest-globals-test-support";
import Database from "better-sqlite3";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openSqliteCheckpoints } from "./sqlite-saver";
import type { StampingSaver } from "./stamping-saver";
import type { ChannelMode } from "./mode";

const { validate, deltaChannelHistoryTests } = await import("@langchain/langgraph-checkpoint-validation");

for (const mode of ["full", "delta"] as ChannelMode[]) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `ckpt-validate-${mode}-`));
  let n = 0;
  const open = new Map<StampingSaver, Database.Database>();
  vitest.describe(`[CCM-05] StampingSaver (${mode}) passes the checkpoint validation suite`, () => {
  const initializer = {
    // The storage underneath is SqliteSaver: the suite's own skip list for it
    // applies ("SQLiteSaver doesn't store channel deltas" is an upstream
    // storage property the wrapper does not change).
    checkpointerName: "@langchain/langgraph-checkpoint-sqlite",
    createCheckpointer(): StampingSaver {
      // A fresh database file per instance keeps instances isolated.
      const sqlite = new Database(path.join(dir, `v${++n}.db`));
      const { saver } = openSqliteCheckpoints({ sqlite, mode });
      open.set(saver, sqlite);
      return saver;
    },
    destroyCheckpointer(saver: StampingSaver) {
      open.get(saver)?.close();
      open.delete(saver);
    },
    afterAll() {
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  validate<StampingSaver>(initializer);
  // Not part of validate() in 1.1.1; delta replay depends on it.
  deltaChannelHistoryTests<StampingSaver>(initializer);
  });
}
