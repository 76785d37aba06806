import { afterEach, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "@/server/db/test-db";
import { openPassConnection, openPassStore, PASS_CACHE_KIB, PASS_STORE_OPTIONS } from "./pass-connection";

let t: TestDb | undefined;
afterEach(() => t?.close());

describe("the pass's own connection", () => {
  it("opens the workspace with the server's pragmas, a small page cache, and a store that collects before huge rows", () => {
    t = createTestDb();
    const pass = openPassConnection(t.file);
    try {
      expect(PASS_CACHE_KIB).toBeLessThan(16000);
      expect(pass.sqlite.pragma("cache_size", { simple: true })).toBe(-PASS_CACHE_KIB);
      expect(pass.sqlite.pragma("journal_mode", { simple: true })).toBe("wal");
      expect(pass.sqlite.pragma("busy_timeout", { simple: true })).toBe(5000);
      expect(PASS_STORE_OPTIONS.collectBeforeHugeRows).toBe(true);
    } finally {
      pass.sqlite.close();
    }
  });

  it("gives the pass its store on that connection", async () => {
    t = createTestDb();
    const { handle, store } = openPassStore(t.file);
    try {
      expect(handle.sqlite.pragma("cache_size", { simple: true })).toBe(-PASS_CACHE_KIB);
      expect(await store.captureBounds()).toEqual({ upperTaskId: null, upperMessageRowid: null });
    } finally {
      handle.sqlite.close();
    }
  });
});
