import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { GET as logsGet } from "@/app/api/v1/system/logs/route";
import { hashSessionToken } from "@/server/auth/current-user";
import { createLogger } from "@/server/log";
import { createTestRuntime, type TestRuntime } from "@/server/runtime-test-support";
import { LogRing } from "./ring";
import { sanitizeLogRecord } from "./sanitize";

const CANARY = "canary-Secret Task Title 7f3a";

function line(record: Record<string, unknown>): string {
  return JSON.stringify({ level: 30, time: "2026-11-29T10:00:00.000Z", msg: "batch committed", ...record });
}

describe("log ring allowlist", () => {
  it("[TPR-OBS-03] keeps numbers, booleans and identifier-shaped ids; drops free text, nested objects and arrays", () => {
    const entry = sanitizeLogRecord({
      level: 40,
      time: "2026-11-29T10:00:00.000Z",
      msg: "cleanup batch failed",
      pid: 1,
      hostname: "box",
      service: "workspace-retention",
      operationId: "op_123",
      requestId: "6f1c9a4e-1d2b-4c7e-9f00-0a1b2c3d4e5f",
      code: "maintenance_busy",
      changed: 12,
      payloadBytes: 4096,
      armed: true,
      title: CANARY,
      content: CANARY,
      stdout: CANARY,
      metadata: { normalized: { stdout: CANARY } },
      ids: ["a", "b"],
      // An allowlisted key cannot carry prose: a value with spaces is dropped.
      state: CANARY,
    });
    expect(entry).toEqual({
      level: "warn",
      time: "2026-11-29T10:00:00.000Z",
      msg: "cleanup batch failed",
      fields: { operationId: "op_123", requestId: "6f1c9a4e-1d2b-4c7e-9f00-0a1b2c3d4e5f", code: "maintenance_busy", changed: 12, payloadBytes: 4096, armed: true },
    });
    expect(JSON.stringify(entry)).not.toContain("canary");
  });

  it("[TPR-OBS-03] an error object keeps only its name and code, never its message or stack", () => {
    const entry = sanitizeLogRecord({ level: 50, time: "t", msg: "route failed", err: { name: "SqliteError", code: "SQLITE_BUSY", message: CANARY, stack: CANARY } });
    expect(entry?.fields).toEqual({ errName: "SqliteError", errCode: "SQLITE_BUSY" });
  });

  it("[TPR-OBS-03] records without a known level are ignored; messages are bounded", () => {
    expect(sanitizeLogRecord({ level: 35, msg: "x" })).toBeNull();
    expect(sanitizeLogRecord("text")).toBeNull();
    expect(sanitizeLogRecord({ level: 30, time: "t", msg: "m".repeat(1000) })?.msg).toHaveLength(200);
  });
});

describe("log ring buffer", () => {
  it("is bounded: keeps the newest entries, newest first, filtered by minimum level", () => {
    const ring = new LogRing({ capacity: 3 });
    for (let i = 1; i <= 5; i++) ring.recordLine(line({ level: i % 2 ? 30 : 40, n: i }));
    ring.recordLine("not json");
    const all = ring.list();
    expect(all.map((e) => e.fields.n)).toEqual([5, 4, 3]);
    expect(ring.list({ level: "warn" }).map((e) => e.fields.n)).toEqual([4]);
    expect(ring.list({ limit: 1 }).map((e) => e.seq)).toEqual([5]);
  });

  it("[TPR-OBS-03] is fed by the pino logger through a second stream, sanitized on the way in", () => {
    const ring = new LogRing({ capacity: 10 });
    const log = createLogger({ level: "warn", ring });
    log.info({ operationId: "op_9", changed: 3, title: CANARY }, "cleanup batch committed");
    log.debug({ operationId: "op_9" }, "debug line");
    const entries = ring.list();
    // info reaches the ring even when stdout is at warn; debug does not.
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ level: "info", msg: "cleanup batch committed", fields: { operationId: "op_9", changed: 3 } });
    expect(JSON.stringify(entries)).not.toContain("canary");
  });
});

describe("GET /api/v1/system/logs", () => {
  const BASE = "http://localhost:3000";
  let rt: TestRuntime;
  beforeEach(() => {
    rt = createTestRuntime({ prefix: "logs-route-", install: true });
    const db = rt.handle.sqlite;
    db.prepare("insert into users (id, email, role, password_hash, created_at) values ('u1', 'v@example.com', 'viewer', 'x', '2026-01-01T00:00:00Z')").run();
    db.prepare("insert into auth_sessions (token_hash, user_id, created_at_ms, expires_at_ms) values (?, 'u1', 0, 9e15)").run(hashSessionToken("viewer-token"));
  });
  afterEach(() => rt.dispose());
  const get = (query: string, cookie?: string) =>
    logsGet(new Request(`${BASE}/api/v1/system/logs${query}`, { headers: cookie ? { cookie } : {} }));

  it("[TPR-OBS-03] 401 anonymous, 400 unknown level or field, members read entries at or above the level", async () => {
    rt.logRing.recordLine(line({ level: 30, operationId: "op_info" }));
    rt.logRing.recordLine(line({ level: 50, operationId: "op_error", title: CANARY }));
    expect((await get("")).status).toBe(401);
    const bad = await get("?level=loud", "wsr_session=viewer-token");
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.code).toBe("invalid_request");
    expect((await get("?level=info&extra=1", "wsr_session=viewer-token")).status).toBe(400);
    const errors = await get("?level=error", "wsr_session=viewer-token");
    expect(errors.status).toBe(200);
    const body = await errors.json();
    expect(body).toMatchObject({ level: "error", capacity: 500 });
    const ops = body.entries.map((e: { fields: { operationId?: string } }) => e.fields.operationId);
    expect(ops).toContain("op_error");
    expect(ops).not.toContain("op_info");
    expect(JSON.stringify(body)).not.toContain("canary");
  });
});
