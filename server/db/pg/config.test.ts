import { describe, expect, it } from "vitest";
import { readPgConfig } from "./config";

describe("readPgConfig", () => {
  it("reads pool size and timeouts from the environment, with defaults", () => {
    expect(readPgConfig("postgres://h/db", {})).toEqual({
      url: "postgres://h/db",
      poolMax: 4,
      timeouts: { statementTimeoutMs: 30_000, lockTimeoutMs: 5_000 },
      applicationName: "agent-storage-retention",
    });
    const env = { PG_POOL_MAX: "2", PG_STATEMENT_TIMEOUT_MS: "0", PG_LOCK_TIMEOUT_MS: "250", PG_APPLICATION_NAME: "node-a" };
    expect(readPgConfig("postgres://h/db", env)).toMatchObject({ poolMax: 2, timeouts: { statementTimeoutMs: 0, lockTimeoutMs: 250 }, applicationName: "node-a" });
    expect(() => readPgConfig("postgres://h/db", { PG_POOL_MAX: "0" })).toThrow(/PG_POOL_MAX/);
    expect(() => readPgConfig("postgres://h/db", { PG_LOCK_TIMEOUT_MS: "soon" })).toThrow(/PG_LOCK_TIMEOUT_MS/);
  });
});
