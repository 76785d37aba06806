// The Database page's maintenance on PostgreSQL through the real routes:
// footprint from the catalog (with dead tuples), VACUUM (ANALYZE) per table
// under the same guard, backups as pg_dump custom archives (verified by
// pg_restore --list and a scratch restore, SHA-256 receipt, 0600, published
// atomically) and a restore in place with the same typed confirmation.
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { POST as backupRestore } from "@/app/api/v1/system/database/backups/[name]/restore/route";
import { GET as backupsList, POST as backupsCreate } from "@/app/api/v1/system/database/backups/route";
import { GET as statsGet } from "@/app/api/v1/system/database/stats/route";
import { POST as vacuumPost } from "@/app/api/v1/system/database/vacuum/route";
import { TEST_POSTGRES_URL } from "@/server/db/pg/test-db";
import { AS_ADMIN, AS_VIEWER, apiRequest, setUpEngineRouteTestEnv, type EngineRouteTestEnv } from "@/server/http/route-test-support";
import { runPgTool } from "./pg-tools";

const OLD = "2025-01-01T00:00:00Z";
const named = (name: string) => ({ params: Promise.resolve({ name }) });

describe.skipIf(!TEST_POSTGRES_URL)("database maintenance on PostgreSQL", () => {
  let env: EngineRouteTestEnv;
  beforeEach(async () => {
    env = await setUpEngineRouteTestEnv("postgres", "pg-maint-", { env: { PG_BACKUP_VERIFY_RESTORE: "1" } });
  });
  afterEach(() => env.dispose());

  const seedTask = (id: string) =>
    env.rt.stores.workspace.writeTransaction((tx) => tx.insertTask({ id, title: id, state: "COMPLETED", createdAt: OLD, updatedAt: OLD, queuedForStep: false }));
  const taskIds = async () => (await env.rt.stores.workspace.listTasks({ limit: 100, offset: 0 })).tasks.map((task) => task.id);

  it("reports table and index sizes and dead tuples from the catalog; VACUUM (ANALYZE) runs per table", async () => {
    for (let i = 0; i < 20; i += 1) await seedTask(`t${i}`);
    await env.rt.postgres!.run(`delete from tasks where id like 't1%'`);
    await env.rt.postgres!.exec(`analyze tasks`);
    const before = await (await statsGet(apiRequest("GET", "/api/v1/system/database/stats", AS_VIEWER))).json();
    expect(before.capability).toBe("supported");
    const tasks = before.tables.find((table: { name: string }) => table.name === "tasks");
    expect(tasks).toMatchObject({ bytesMethod: "catalog", deadTuples: expect.any(Number) });
    expect(tasks.indexBytes).toBeGreaterThan(0);
    expect(before.fileBytes).toBeGreaterThan(0);

    // The checkpoint saver's tables are created at runtime open (async); they are vacuumed too.
    await env.rt.checkpoints.pgSaver?.ready();
    const vacuum = await vacuumPost(apiRequest("POST", "/api/v1/system/database/vacuum", AS_ADMIN, {}));
    expect(vacuum.status).toBe(200);
    expect(await vacuum.json()).toMatchObject({ beforeBytes: expect.any(Number), afterBytes: expect.any(Number) });
    // Every table was vacuumed and analyzed (dead-tuple counts lag: backends flush their statistics about once a second).
    const notVacuumed = await env.rt.postgres!.query(`select relname from pg_stat_user_tables where schemaname = 'public' and (last_vacuum is null or last_analyze is null)`);
    expect(notVacuumed).toEqual([]);
    expect((await vacuumPost(apiRequest("POST", "/api/v1/system/database/vacuum", AS_VIEWER, {}))).status).toBe(403);
  });

  it("backs up with pg_dump (verified, SHA-256 receipt, 0600) and restores in place only with the typed name, keeping live sign-ins", async () => {
    await seedTask("kept");
    const created = await backupsCreate(apiRequest("POST", "/api/v1/system/database/backups", AS_ADMIN, {}));
    expect(created.status).toBe(201);
    const receipt = await created.json();
    const file = path.join(env.dir, "backups", receipt.name);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(crypto.createHash("sha256").update(fs.readFileSync(file)).digest("hex")).toBe(receipt.sha256);
    expect((await runPgTool("pg_restore", { args: ["--list", file] })).stdout).toMatch(/TABLE DATA public messages /);
    // Nothing but the published archive is left (no staging folder).
    expect(fs.readdirSync(path.join(env.dir, "backups"))).toEqual([receipt.name]);
    const listed = await (await backupsList(apiRequest("GET", "/api/v1/system/database/backups", AS_ADMIN))).json();
    expect(listed.backups.map((b: { name: string }) => b.name)).toEqual([receipt.name]);

    await seedTask("after-backup");
    const wrong = await backupRestore(apiRequest("POST", `/api/v1/system/database/backups/${receipt.name}/restore`, AS_ADMIN, { confirm: "yes" }), named(receipt.name));
    expect(wrong.status).toBe(400);
    expect((await taskIds()).sort()).toEqual(["after-backup", "kept"]);

    const restored = await backupRestore(apiRequest("POST", `/api/v1/system/database/backups/${receipt.name}/restore`, AS_ADMIN, { confirm: receipt.name }), named(receipt.name));
    expect(restored.status).toBe(200);
    expect(await restored.json()).toEqual({ restored: receipt.name, restartRequired: true });
    expect(await taskIds()).toEqual(["kept"]);
    // The admin's session survived the restore: the next request is still signed in.
    expect((await backupsList(apiRequest("GET", "/api/v1/system/database/backups", AS_ADMIN))).status).toBe(200);
  });
});
