// #26 item 7: a maintenance lock naming another host kept maintenance busy
// for ever (no process here can probe another host's pid), with nothing to
// say why and no way out but deleting a file by hand. It is reported to
// every member and an admin clears it, through the real routes on both
// engines (PostgreSQL's advisory lock ends with its session: nothing there
// to report or clear).
import fs from "node:fs";
import os from "node:os";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { POST as clearPost } from "@/app/api/v1/system/database/maintenance-lock/clear/route";
import { GET as statsGet } from "@/app/api/v1/system/database/stats/route";
import { POST as vacuumPost } from "@/app/api/v1/system/database/vacuum/route";
import { TEST_POSTGRES_URL } from "@/server/db/pg/test-db";
import { AS_ADMIN, AS_VIEWER, apiRequest, setUpEngineRouteTestEnv, type EngineRouteTestEnv, type Who } from "@/server/http/route-test-support";
import { processLockFileFor } from "./process-lock";

const CLEAR = "/api/v1/system/database/maintenance-lock/clear";
const FAR = { id: "far-lock", owner: "server", kind: "vacuum", pid: 1, token: "t", host: "old-container-7f3a", acquiredAt: "2026-11-30T08:00:00.000Z" };

for (const { engine, skip } of [
  { engine: "sqlite" as const, skip: false },
  { engine: "postgres" as const, skip: !TEST_POSTGRES_URL },
]) {
  describe.skipIf(skip)(`a maintenance lock of another host [${engine}]`, () => {
    let env: EngineRouteTestEnv;
    beforeEach(async () => {
      env = await setUpEngineRouteTestEnv(engine, "foreign-lock-");
    });
    afterEach(() => env.dispose());

    // Where another process's lock would be: beside the SQLite file (on PostgreSQL, beside the data anchor, where nothing reads it).
    const lockFile = () => processLockFileFor(env.rt.dbFile!);
    const plant = (holder: Record<string, unknown>) => fs.writeFileSync(lockFile(), JSON.stringify(holder));
    const stats = async (who: Who = AS_VIEWER) => (await statsGet(apiRequest("GET", "/api/v1/system/database/stats", who))).json();
    const clear = (body: unknown, who: Who = AS_ADMIN) => clearPost(apiRequest("POST", CLEAR, who, body));
    const vacuum = () => vacuumPost(apiRequest("POST", "/api/v1/system/database/vacuum", AS_ADMIN, {}));
    const lockAudit = () =>
      env.sql.all<{ result: string; error_code: string | null; detail: string }>(`select result, error_code, detail from audit_events where kind = 'maintenance.lock_cleared' order by seq`);

    if (engine === "sqlite") {
      it("[#26-7] is reported to members, refused work says why, and only an admin who types its host clears it", async () => {
        plant(FAR);
        // Before: maintenance_busy with nothing to act on, for ever.
        const busy = await vacuum();
        expect(busy.status).toBe(503);
        const refusal = await busy.json();
        expect(refusal.error.code).toBe("maintenance_busy");
        expect(refusal.error.message).toMatch(/another host/);
        expect(await stats()).toMatchObject({
          maintenanceBusy: "vacuum",
          unverifiableLock: { id: "far-lock", kind: "vacuum", host: "old-container-7f3a", acquiredAt: "2026-11-30T08:00:00.000Z" },
        });

        expect((await clear({ id: "far-lock", confirm: "old-container-7f3a" }, AS_VIEWER)).status).toBe(403);
        expect((await clear({ id: "far-lock", confirm: "old-container-7f3a" }, null)).status).toBe(401);
        const wrongHost = await clear({ id: "far-lock", confirm: "old-container" });
        expect(wrongHost.status).toBe(400);
        expect((await wrongHost.json()).error.code).toBe("invalid_request");
        const otherLock = await clear({ id: "another-lock", confirm: "old-container-7f3a" });
        expect(otherLock.status).toBe(409);
        expect((await otherLock.json()).error.code).toBe("maintenance_lock_changed");
        expect((await clear({ id: "far-lock", confirm: "old-container-7f3a", force: true })).status).toBe(400);
        expect(fs.existsSync(lockFile())).toBe(true);

        const cleared = await clear({ id: "far-lock", confirm: "old-container-7f3a" });
        expect(cleared.status).toBe(200);
        expect(await cleared.json()).toEqual({ cleared: "far-lock" });
        expect(fs.existsSync(lockFile())).toBe(false);
        expect(await stats()).toMatchObject({ maintenanceBusy: null, unverifiableLock: null });
        expect((await vacuum()).status).toBe(200);
        const again = await clear({ id: "far-lock", confirm: "old-container-7f3a" });
        expect(again.status).toBe(404);

        const audit = await lockAudit();
        expect(audit.map((row) => [row.result, row.error_code])).toEqual([
          ["failed", "invalid_request"],
          ["failed", "maintenance_lock_changed"],
          ["ok", null],
          ["failed", "not_found"],
        ]);
        expect(JSON.parse(audit[2]!.detail)).toEqual({ lockHost: "old-container-7f3a", lockKind: "vacuum" });
      });

      it("[#26-7] a planted lock's fields are checked: an unreadable host is confirmed by the lock's id, an unknown kind is not echoed", async () => {
        plant({ ...FAR, host: "evil\nhost <b>", kind: "drop table", acquiredAt: "not a time" });
        const lock = (await stats()).unverifiableLock;
        expect(lock).toEqual({ id: "far-lock", kind: null, host: null, acquiredAt: null });
        expect((await clear({ id: "far-lock", confirm: "evil\nhost <b>" })).status).toBe(400);
        expect((await clear({ id: "far-lock", confirm: "far-lock" })).status).toBe(200);
        expect(fs.existsSync(lockFile())).toBe(false);
      });

      it("[#26-7] this host's locks are not offered for clearing: a live holder here stays, a dead one is taken over as before", async () => {
        // A holder on this host whose process is alive (this test's own pid, another incarnation would be stale).
        const live = await env.rt.guard.tryAcquire({ owner: "test", kind: "backup" });
        expect(live).not.toBeNull();
        expect((await stats()).unverifiableLock).toBeNull();
        const held = JSON.parse(fs.readFileSync(lockFile(), "utf8")) as { id: string; host: string };
        expect(held.host).toBe(os.hostname());
        expect((await clear({ id: held.id, confirm: held.host })).status).toBe(404);
        expect(fs.existsSync(lockFile())).toBe(true);
        live!.release();
      });
    } else {
      it("[#26-7] the lock is PostgreSQL's advisory lock: nothing of another host to report, a planted file is not read, and clearing answers 404", async () => {
        plant(FAR);
        expect(await stats()).toMatchObject({ capability: "supported", maintenanceBusy: null, unverifiableLock: null });
        expect((await clear({ id: "far-lock", confirm: "old-container-7f3a" })).status).toBe(404);
        expect((await vacuum()).status).toBe(200);
        expect((await lockAudit()).map((row) => row.error_code)).toEqual(["not_found"]);
      });
    }
  });
}
