import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { auditPageSchema, type AuditEntry } from "@/lib/audit/api";
import { POST as loginPost } from "@/app/api/v1/auth/login/route";
import { GET as auditGet } from "@/app/api/v1/system/audit/route";
import { DELETE as backupDelete } from "@/app/api/v1/system/database/backups/[name]/route";
import { POST as backupRestore } from "@/app/api/v1/system/database/backups/[name]/restore/route";
import { POST as backupsCreate } from "@/app/api/v1/system/database/backups/route";
import { POST as checkpointsRun } from "@/app/api/v1/system/database/checkpoints/run/route";
import { PUT } from "@/app/api/v1/system/database/tool-payload-retention/route";
import { POST as run } from "@/app/api/v1/system/database/tool-payload-retention/run/route";
import { POST as cancel } from "@/app/api/v1/system/database/tool-payload-retention/cancel/route";
import { POST as vacuumPost } from "@/app/api/v1/system/database/vacuum/route";
import { AppError } from "@/server/errors";
import { AS_ADMIN, AS_VIEWER, apiRequest, setUpRouteTestEnv, type RouteTestEnv } from "@/server/http/route-test-support";
import { audited } from "./record";
import { pruneAuditTrail } from "./retention";
import { createUserAudited } from "./user-created";

const POLICY = "/api/v1/system/database/tool-payload-retention";
let env: RouteTestEnv;

beforeEach(async () => {
  env = await setUpRouteTestEnv("audit-routes-");
});
afterEach(async () => {
  await env.rt.checkpoints.jobs.queue.idle();
  await env.dispose();
});

async function entries(query = ""): Promise<AuditEntry[]> {
  const res = await auditGet(apiRequest("GET", `/api/v1/system/audit${query}`, AS_ADMIN));
  expect(res.status).toBe(200);
  return auditPageSchema.parse(await res.json()).entries;
}

const put = (body: unknown) => PUT(apiRequest("PUT", POLICY, AS_ADMIN, body));
const enable = (preparation: "skip" | "backup", expectedRevision = 0) => ({
  policy: { enabled: true, age: { value: 3, unit: "months" } },
  expectedRevision,
  preparation,
});
const named = (name: string) => ({ params: Promise.resolve({ name }) });

function auditRowCount(): number {
  return (env.rt.handle.sqlite.prepare("select count(*) as n from audit_events").get() as { n: number }).n;
}

describe("audit trail", () => {
  it("records a policy change with before, after and revision, and the skip choice, by the signed-in admin", async () => {
    const startedMs = env.rt.clock.now();
    expect((await put(enable("skip"))).status).toBe(200);
    const [change, choice] = await entries();
    expect(change).toMatchObject({
      kind: "policy.changed",
      actor: "u-admin",
      actorEmail: "admin@example.com",
      result: "ok",
      errorCode: null,
      detail: {
        before: { enabled: false, age: { value: 3, unit: "months" }, revision: 0 },
        after: { enabled: true, age: { value: 3, unit: "months" }, revision: 1 },
        revision: 1,
      },
    });
    expect(choice).toMatchObject({ kind: "preparation.chosen", actor: "u-admin", result: "ok", detail: { choice: "skip", revision: 1 } });
    expect(Date.parse(change!.at)).toBeGreaterThanOrEqual(startedMs);
    expect(Date.parse(change!.at)).toBeLessThanOrEqual(env.rt.clock.now());
  });

  it("records the backup choice with its preparation operation", async () => {
    expect((await put(enable("backup"))).status).toBe(200);
    const choice = (await entries("?kind=preparation.chosen"))[0];
    expect(choice).toMatchObject({ result: "ok", detail: { choice: "backup", revision: 1, operationId: expect.any(String) } });
    await env.rt.compaction.idle();
  });

  it("records a refused change with its error code and without the change", async () => {
    expect((await put(enable("skip", 7))).status).toBe(409);
    expect((await put({ policy: { enabled: true, age: { value: 3, unit: "months" } }, expectedRevision: 0 })).status).toBe(400);
    const [choiceMissing, conflict] = await entries();
    expect(conflict).toMatchObject({
      kind: "policy.changed",
      result: "failed",
      errorCode: "conflict",
      detail: { before: { revision: 0 }, after: { enabled: true, revision: 7 } },
    });
    expect(choiceMissing).toMatchObject({ kind: "policy.changed", result: "failed", errorCode: "backup_choice_required" });
    expect(await entries("?kind=preparation.chosen")).toEqual([]);
  });

  it("a change that rolls back leaves no entry, a refusal leaves only its failed entry", async () => {
    const rt = env.rt;
    const insertUser = (id: string) =>
      rt.stores.auth.insertUser({ id, email: `${id}@example.com`, role: "viewer", passwordHash: "x", createdAt: "2026-01-01T00:00:00Z" });
    await expect(
      audited(rt, { actor: "u-admin", kind: "user.created" }, async () => {
        await insertUser("rolled-back");
        throw new Error("disk full");
      }),
    ).rejects.toThrow("disk full");
    expect(await rt.stores.auth.findUserByEmail("rolled-back@example.com")).toBeNull();
    expect(auditRowCount()).toBe(0);

    await expect(
      audited(rt, { actor: "u-admin", kind: "user.created", detail: { role: "viewer" } }, async () => {
        await insertUser("refused");
        throw new AppError("conflict", "taken");
      }),
    ).rejects.toThrow("taken");
    expect(await rt.stores.auth.findUserByEmail("refused@example.com")).toBeNull();
    expect(await entries()).toEqual([expect.objectContaining({ result: "failed", errorCode: "conflict", detail: { role: "viewer" } })]);
  });

  it("records a manual run, a refused run and a cancel", async () => {
    await put(enable("skip"));
    await env.rt.compaction.idle();
    const refused = await run(apiRequest("POST", `${POLICY}/run`, AS_ADMIN, { expectedRevision: 0 }));
    expect(refused.status).toBe(409);
    const accepted = await run(apiRequest("POST", `${POLICY}/run`, AS_ADMIN, { expectedRevision: 1 }));
    expect(accepted.status).toBe(202);
    const { operationId } = (await accepted.json()) as { operationId: string };
    await cancel(apiRequest("POST", `${POLICY}/cancel`, AS_ADMIN, { operationId }));
    await env.rt.compaction.idle();
    const runs = await entries("?kind=compaction.run");
    expect(runs).toEqual([
      expect.objectContaining({ result: "ok", detail: { operationId } }),
      expect.objectContaining({ result: "failed", errorCode: "conflict" }),
    ]);
    expect((await entries("?kind=compaction.cancelled"))[0]).toMatchObject({ actor: "u-admin", detail: { operationId } });
  });

  it("records backups created, deleted and restored, and VACUUM", async () => {
    const created = await backupsCreate(apiRequest("POST", "/api/v1/system/database/backups", AS_ADMIN, {}));
    const { name } = (await created.json()) as { name: string };
    const second = (await (await backupsCreate(apiRequest("POST", "/api/v1/system/database/backups", AS_ADMIN, {}))).json()) as { name: string };
    expect((await vacuumPost(apiRequest("POST", "/api/v1/system/database/vacuum", AS_ADMIN, {}))).status).toBe(200);
    expect((await backupDelete(apiRequest("DELETE", `/api/v1/system/database/backups/${second.name}`, AS_ADMIN), named(second.name))).status).toBe(200);
    const missing = await backupDelete(apiRequest("DELETE", "/api/v1/system/database/backups/nope.sqlite", AS_ADMIN), named("nope.sqlite"));
    expect(missing.status).toBe(400);
    const before = await entries();
    expect(before.map((e) => [e.kind, e.result, e.errorCode])).toEqual([
      ["backup.deleted", "failed", "invalid_request"],
      ["backup.deleted", "ok", null],
      ["database.vacuumed", "ok", null],
      ["backup.created", "ok", null],
      ["backup.created", "ok", null],
    ]);
    expect(before[2]!.detail).toEqual({ freedBytes: expect.any(Number) });
    expect(before[4]!.detail).toEqual({ backupName: name });

    const restored = await backupRestore(apiRequest("POST", `/api/v1/system/database/backups/${name}/restore`, AS_ADMIN, { confirm: name }), named(name));
    expect(restored.status).toBe(200);
    // The entry lands in the restored database, which predates the later entries.
    const after = await entries();
    expect(after[0]).toMatchObject({ kind: "backup.restored", result: "ok", detail: { backupName: name } });
  });

  it("records a checkpoint cleanup request", async () => {
    const res = await checkpointsRun(apiRequest("POST", "/api/v1/system/database/checkpoints/run", AS_ADMIN, {}));
    expect(res.status).toBe(202);
    const { operationId } = (await res.json()) as { operationId: string };
    expect((await entries())[0]).toMatchObject({ kind: "checkpoints.cleanup", actor: "u-admin", result: "ok", detail: { operationId } });
  });

  it("records user creation from the command line, and sign-in success and failure without the typed email or password", async () => {
    const input = { email: "ops@example.com", role: "viewer" as const, password: "a long enough passphrase 42", nowMs: env.rt.clock.now() };
    const { id } = await createUserAudited(env.rt, { actor: "cli", input });
    await expect(createUserAudited(env.rt, { actor: "cli", input })).rejects.toThrow();
    const login = (body: unknown) =>
      loginPost(new Request("http://localhost:3000/api/v1/auth/login", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }));
    expect((await login({ email: input.email, password: input.password })).status).toBe(200);
    expect((await login({ email: input.email, password: "wrong password typed here" })).status).toBe(401);
    expect((await login({ email: "typo@example.com", password: "secret-in-email-field" })).status).toBe(401);
    const list = await entries();
    expect(list.map((e) => [e.kind, e.actor, e.result, e.errorCode])).toEqual([
      ["auth.sign_in", "unknown", "failed", "invalid_credentials"],
      ["auth.sign_in", id, "failed", "invalid_credentials"],
      ["auth.sign_in", id, "ok", null],
      ["user.created", "cli", "failed", "conflict"],
      ["user.created", "cli", "ok", null],
    ]);
    expect(list.at(-1)!.detail).toEqual({ userId: id, role: "viewer" });
    const stored = JSON.stringify(env.rt.handle.sqlite.prepare("select * from audit_events").all());
    for (const secret of ["typo@example.com", "secret-in-email-field", "wrong password", input.password, input.email]) expect(stored).not.toContain(secret);
  });

  it("GET is admin only (viewer 403), newest first, cursor-paginated and filtered by kind; bad queries 400", async () => {
    const target = { stores: env.rt.stores, clock: env.rt.clock };
    for (let i = 0; i < 5; i += 1) await audited(target, { actor: "cli", kind: i % 2 ? "database.vacuumed" : "backup.created" }, () => i);
    expect((await auditGet(apiRequest("GET", "/api/v1/system/audit", AS_VIEWER))).status).toBe(403);
    expect((await auditGet(apiRequest("GET", "/api/v1/system/audit", null))).status).toBe(401);
    for (const bad of ["?kind=nope", "?cursor=abc", "?limit=0", "?other=1"]) {
      const res = await auditGet(apiRequest("GET", `/api/v1/system/audit${bad}`, AS_ADMIN));
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe("invalid_request");
    }
    const first = auditPageSchema.parse(await (await auditGet(apiRequest("GET", "/api/v1/system/audit?limit=2", AS_ADMIN))).json());
    expect(first.entries.map((e) => e.id)).toEqual([5, 4]);
    const second = auditPageSchema.parse(await (await auditGet(apiRequest("GET", `/api/v1/system/audit?limit=2&cursor=${first.nextCursor}`, AS_ADMIN))).json());
    expect(second.entries.map((e) => e.id)).toEqual([3, 2]);
    const last = auditPageSchema.parse(await (await auditGet(apiRequest("GET", `/api/v1/system/audit?limit=2&cursor=${second.nextCursor}`, AS_ADMIN))).json());
    expect(last).toMatchObject({ entries: [{ id: 1 }], nextCursor: null });
    expect((await entries("?kind=database.vacuumed")).map((e) => e.id)).toEqual([4, 2]);
  });

  it("pruning deletes entries older than the retention", async () => {
    const target = { stores: env.rt.stores, clock: env.rt.clock };
    await audited(target, { actor: "cli", kind: "backup.created" }, () => 1);
    const day = 24 * 60 * 60 * 1000;
    const { atMs } = env.rt.handle.sqlite.prepare("select at_ms as atMs from audit_events").get() as { atMs: number };
    expect(await pruneAuditTrail({ store: env.rt.stores.audit, nowMs: atMs + 180 * day, days: 180 })).toBe(0);
    expect(await pruneAuditTrail({ store: env.rt.stores.audit, nowMs: atMs + 180 * day + 1, days: 180 })).toBe(1);
    expect(auditRowCount()).toBe(0);
  });
});
