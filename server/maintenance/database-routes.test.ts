import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DELETE as backupDelete, GET as backupDownload } from "@/app/api/v1/system/database/backups/[name]/route";
import { POST as backupRestore } from "@/app/api/v1/system/database/backups/[name]/restore/route";
import { GET as backupsList, POST as backupsCreate } from "@/app/api/v1/system/database/backups/route";
import { GET as statsGet } from "@/app/api/v1/system/database/stats/route";
import { POST as vacuumPost } from "@/app/api/v1/system/database/vacuum/route";
import { hashSessionToken } from "@/server/auth/current-user";
import { createTestRuntime, installUnsupportedRuntime, type TestRuntime } from "@/server/runtime-test-support";

const BASE = "http://localhost:3000";
const ADMIN = "wsr_session=admin-token";
const VIEWER = "wsr_session=viewer-token";
type Who = typeof ADMIN | typeof VIEWER | null;

function request(method: string, url: string, who: Who, body?: unknown, headers: Record<string, string> = {}): Request {
  const h: Record<string, string> = { origin: BASE, ...headers };
  if (who) h.cookie = who;
  if (body !== undefined) h["content-type"] = "application/json";
  return new Request(`${BASE}${url}`, { method, headers: h, body: body === undefined ? undefined : JSON.stringify(body) });
}

function withName(name: string) {
  return { params: Promise.resolve({ name }) };
}

let rt: TestRuntime;

function sqlite() {
  return rt.handle.sqlite;
}

function backupsDir(): string {
  return path.join(path.dirname(rt.handle.file), "backups");
}

function listedFiles(): string[] {
  return fs.existsSync(backupsDir()) ? fs.readdirSync(backupsDir()) : [];
}

async function createViaApi(): Promise<{ name: string; sizeBytes: number; sha256: string }> {
  const response = await backupsCreate(request("POST", "/api/v1/system/database/backups", ADMIN, {}));
  expect(response.status).toBe(201);
  return response.json();
}

describe("database maintenance routes", () => {
  beforeEach(async () => {
    // Started, as after boot: restore must stop and restart its worker.
    rt = createTestRuntime({ prefix: "db-routes-", install: true, start: true });
    const db = sqlite();
    const user = db.prepare("insert into users (id, email, role, password_hash, created_at) values (?, ?, ?, 'x', '2026-01-01T00:00:00Z')");
    const session = db.prepare("insert into auth_sessions (token_hash, user_id, created_at_ms, expires_at_ms) values (?, ?, 0, 9e15)");
    user.run("u-admin", "admin@example.com", "admin");
    user.run("u-viewer", "viewer@example.com", "viewer");
    session.run(hashSessionToken("admin-token"), "u-admin");
    session.run(hashSessionToken("viewer-token"), "u-viewer");
  });
  afterEach(async () => rt.dispose());

  it("[TPR-UI-01] stats: 401 anonymous, 200 for a viewer with per-table rows and bytes", async () => {
    expect((await statsGet(request("GET", "/api/v1/system/database/stats", null))).status).toBe(401);
    const response = await statsGet(request("GET", "/api/v1/system/database/stats", VIEWER));
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body).toMatchObject({ capability: "supported", pageSize: 4096, maintenanceBusy: null });
    expect(body.tables.find((t: { name: string }) => t.name === "users").rows).toBe(2);
    expect(body.tables.find((t: { name: string }) => t.name === "messages")).toMatchObject({ rows: 0, bytesMethod: "remainder" });
  });

  it("[TPR-OBS-04] vacuum: admin gets before/after sizes; viewer 403; unknown body field 400; cross-origin 403", async () => {
    expect((await vacuumPost(request("POST", "/api/v1/system/database/vacuum", VIEWER, {}))).status).toBe(403);
    const strict = await vacuumPost(request("POST", "/api/v1/system/database/vacuum", ADMIN, { full: true }));
    expect(strict.status).toBe(400);
    expect((await strict.json()).error.code).toBe("invalid_request");
    const cross = await vacuumPost(request("POST", "/api/v1/system/database/vacuum", ADMIN, {}, { origin: "https://evil.example" }));
    expect(cross.status).toBe(403);
    const response = await vacuumPost(request("POST", "/api/v1/system/database/vacuum", ADMIN, {}));
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(Object.keys(body).sort()).toEqual(["afterBytes", "beforeBytes", "durationMs", "freedBytes"]);
    expect(body.freedBytes).toBe(body.beforeBytes - body.afterBytes);
  });

  it("[TPR-SCH-05] vacuum, backup and restore answer 503 maintenance_busy while a compaction batch holds the guard", async () => {
    const receipt = await createViaApi();
    const lease = (await rt.guard.tryAcquire({ owner: "batch-1", kind: "compaction" }))!;
    try {
      const vacuum = await vacuumPost(request("POST", "/api/v1/system/database/vacuum", ADMIN, {}));
      expect(vacuum.status).toBe(503);
      expect((await vacuum.json()).error.code).toBe("maintenance_busy");
      expect((await backupsCreate(request("POST", "/api/v1/system/database/backups", ADMIN, {}))).status).toBe(503);
      const restore = await backupRestore(request("POST", `/x`, ADMIN, { confirm: receipt.name }), withName(receipt.name));
      expect(restore.status).toBe(503);
      const stats = await (await statsGet(request("GET", "/api/v1/system/database/stats", VIEWER))).json();
      expect(stats.maintenanceBusy).toBe("compaction");
    } finally {
      lease.release();
    }
    expect(listedFiles()).toEqual([receipt.name]);
  });

  it("[TPR-PREP-03] backups: admin creates (201 receipt), members list, viewer cannot create; strict body", async () => {
    expect((await backupsCreate(request("POST", "/api/v1/system/database/backups", VIEWER, {}))).status).toBe(403);
    expect((await backupsCreate(request("POST", "/api/v1/system/database/backups", ADMIN, { label: "x" }))).status).toBe(400);
    expect(listedFiles()).toEqual([]);
    const receipt = await createViaApi();
    expect(Object.keys(receipt).sort()).toEqual(["completedAt", "name", "sha256", "sizeBytes"]);
    const list = await (await backupsList(request("GET", "/api/v1/system/database/backups", VIEWER))).json();
    expect(list).toEqual({ capability: "supported", keep: 10, backups: [expect.objectContaining({ name: receipt.name, sizeBytes: receipt.sizeBytes })] });
  });

  it("[TPR-PREP-09] a client closing the connection does not cancel an accepted backup or vacuum", async () => {
    const controller = new AbortController();
    const init = { method: "POST", body: "{}", signal: controller.signal, headers: { origin: BASE, cookie: ADMIN, "content-type": "application/json" } };
    const backup = backupsCreate(new Request(`${BASE}/api/v1/system/database/backups`, init));
    controller.abort();
    const backupResponse = await backup;
    expect(backupResponse.status).toBe(201);
    expect(listedFiles()).toEqual([(await backupResponse.json()).name]);
    const vacuum = vacuumPost(new Request(`${BASE}/api/v1/system/database/vacuum`, init));
    const body = await (await vacuum).json();
    expect(body.afterBytes).toBeGreaterThan(0);
  });

  it("backups: admin downloads the exact bytes; viewer 403", async () => {
    const receipt = await createViaApi();
    expect((await backupDownload(request("GET", "/x", VIEWER), withName(receipt.name))).status).toBe(403);
    const response = await backupDownload(request("GET", "/x", ADMIN), withName(receipt.name));
    expect(response.status).toBe(200);
    expect(response.headers.get("content-disposition")).toBe(`attachment; filename="${receipt.name}"`);
    const bytes = Buffer.from(await response.arrayBuffer());
    expect(bytes.equals(fs.readFileSync(path.join(backupsDir(), receipt.name)))).toBe(true);
  });

  // #26 item 7: a name over the audit detail's 200 characters answered 500 in delete and restore.
  it.each(["../workspace.db", "/etc/passwd", "%2e%2e%2fworkspace.db", "..%2Fworkspace.db", "workspace.db", "a".repeat(201), `workspace-${"9".repeat(5000)}.db`])(
    "backups: traversal and foreign names answer 400 and touch nothing (%j)",
    async (name) => {
      const receipt = await createViaApi();
      for (const response of [
        await backupDownload(request("GET", "/x", ADMIN), withName(name)),
        await backupDelete(request("DELETE", "/x", ADMIN), withName(name)),
        await backupRestore(request("POST", "/x", ADMIN, { confirm: name }), withName(name)),
      ]) {
        expect(response.status).toBe(400);
        expect((await response.json()).error.code).toBe("invalid_request");
      }
      expect(fs.existsSync(rt.handle.file)).toBe(true);
      expect(listedFiles()).toEqual([receipt.name]);
    },
  );

  it("backups: delete is admin-only, then 404 for the same name", async () => {
    const receipt = await createViaApi();
    expect((await backupDelete(request("DELETE", "/x", VIEWER), withName(receipt.name))).status).toBe(403);
    const response = await backupDelete(request("DELETE", "/x", ADMIN), withName(receipt.name));
    expect(response.status).toBe(200);
    expect(listedFiles()).toEqual([]);
    expect((await backupDelete(request("DELETE", "/x", ADMIN), withName(receipt.name))).status).toBe(404);
  });

  it("[TPR-SCH-06] restore: wrong confirmation 400 changes nothing; exact name restores and says restart required", async () => {
    const receipt = await createViaApi();
    sqlite().prepare("insert into tasks (id, title, state, created_at, updated_at) values ('late', 'Late', 'COMPLETED', 'now', 'now')").run();
    sqlite().prepare("insert into users (id, email, role, password_hash, created_at) values ('u3', 'late@example.com', 'viewer', 'x', 'now')").run();
    const lateTasks = () => (sqlite().prepare("select count(*) as n from tasks where id = 'late'").get() as { n: number }).n;
    const wrong = await backupRestore(request("POST", "/x", ADMIN, { confirm: "yes" }), withName(receipt.name));
    expect(wrong.status).toBe(400);
    expect(lateTasks()).toBe(1);
    expect((await backupRestore(request("POST", "/x", ADMIN, {}), withName(receipt.name))).status).toBe(400);
    expect((await backupRestore(request("POST", "/x", VIEWER, { confirm: receipt.name }), withName(receipt.name))).status).toBe(403);
    const before = { handle: rt.handle, worker: rt.compaction };
    const response = await backupRestore(request("POST", "/x", ADMIN, { confirm: receipt.name }), withName(receipt.name));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ restored: receipt.name, restartRequired: true });
    // The runtime stays; its connection was reopened on the restored file
    // (the late task is gone; accounts are the live ones) and a fresh worker runs on it.
    expect(before.handle.sqlite.open).toBe(false);
    expect(rt.handle).not.toBe(before.handle);
    expect(lateTasks()).toBe(0);
    expect((sqlite().prepare("select count(*) as n from users").get() as { n: number }).n).toBe(3);
    expect(before.worker.isRunning()).toBe(false);
    expect(rt.compaction).not.toBe(before.worker);
    expect(rt.compaction.isRunning()).toBe(true);
  });

  it("postgres: reads say unsupported and mutations answer 501 without a connection (anonymous: 401)", async () => {
    const restore = installUnsupportedRuntime("postgres://user:secret@127.0.0.1:1/db", rt);
    try {
      expect((await statsGet(request("GET", "/api/v1/system/database/stats", null))).status).toBe(401);
      expect(await (await statsGet(request("GET", "/api/v1/system/database/stats", VIEWER))).json()).toEqual({ capability: "unsupported" });
      expect((await backupsList(request("GET", "/api/v1/system/database/backups", VIEWER))).status).toBe(200);
      expect((await vacuumPost(request("POST", "/api/v1/system/database/vacuum", ADMIN, {}))).status).toBe(501);
      expect((await backupsCreate(request("POST", "/api/v1/system/database/backups", ADMIN, {}))).status).toBe(501);
      expect((await backupDownload(request("GET", "/x", ADMIN), withName("workspace-2026-11-29T22-30-00Z-1a2b3c4d.db"))).status).toBe(501);
    } finally {
      restore();
    }
  });
});
