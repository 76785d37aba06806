// GET|PUT /api/v1/tasks/{id}/hold on every engine: members read the state,
// admins set and release it (who and when are stored and audited with the
// task id only), viewers get 403, cross-origin mutations 403, strict bodies
// 400, unknown tasks 404; and the hold travels with the task's export.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { GET as holdGet, PUT as holdPut } from "@/app/api/v1/tasks/[id]/hold/route";
import { GET as exportGet } from "@/app/api/v1/tasks/[id]/export/route";
import { GET as auditGet } from "@/app/api/v1/system/audit/route";
import { manualClock } from "@/server/clock";
import { TEST_POSTGRES_URL } from "@/server/db/pg/test-db";
import { AS_ADMIN, AS_VIEWER, apiRequest, setUpEngineRouteTestEnv, type EngineRouteTestEnv } from "@/server/http/route-test-support";
import { importFixture } from "@/server/workspace/fixture/import-fixture";
import { sampleFixture } from "@/server/workspace/fixture/test-support";
import { exportTask } from "@/server/workspace/export/export-task";

const NOW = Date.UTC(2026, 5, 1, 12, 0, 0);
const withId = (id: string) => ({ params: Promise.resolve({ id }) });
const url = (id: string) => `/api/v1/tasks/${id}/hold`;

for (const { engine, skip } of [
  { engine: "sqlite" as const, skip: false },
  { engine: "postgres" as const, skip: !TEST_POSTGRES_URL },
]) {
  describe.skipIf(skip)(`task hold routes [${engine}]`, () => {
    let env: EngineRouteTestEnv;
    beforeEach(async () => {
      env = await setUpEngineRouteTestEnv(engine, "hold-routes-", { clock: manualClock(NOW) });
      await importFixture(env.rt.stores.workspace, { file: "in.json", text: sampleFixture() });
    });
    afterEach(() => env.dispose());

    const put = (id: string, body: unknown, who: typeof AS_ADMIN | typeof AS_VIEWER | null = AS_ADMIN, headers: Record<string, string> = {}) =>
      holdPut(apiRequest("PUT", url(id), who, body, headers), withId(id));
    const auditEntries = async () =>
      ((await (await auditGet(apiRequest("GET", "/api/v1/system/audit", AS_ADMIN))).json()) as { entries: Array<{ kind: string; actor: string; detail: unknown; result: string }> }).entries;

    it("members read the state; an admin sets it (who and when) and releases it, each change audited with the task id only", async () => {
      const initial = await holdGet(apiRequest("GET", url("t1"), AS_VIEWER), withId("t1"));
      expect(initial.status).toBe(200);
      expect(await initial.json()).toEqual({ taskId: "t1", held: false, heldAt: null, heldBy: null, heldByEmail: null, restoreId: null });

      const set = await put("t1", { held: true });
      expect(set.status).toBe(200);
      const held = { taskId: "t1", held: true, heldAt: new Date(NOW).toISOString(), heldBy: "u-admin", heldByEmail: "admin@example.com", restoreId: null };
      expect(await set.json()).toEqual(held);
      expect(await (await holdGet(apiRequest("GET", url("t1"), AS_VIEWER), withId("t1"))).json()).toEqual(held);
      // Setting it again changes nothing and records nothing.
      expect(await (await put("t1", { held: true })).json()).toEqual(held);

      const released = await put("t1", { held: false });
      expect(await released.json()).toMatchObject({ held: false, heldAt: null });
      const entries = await auditEntries();
      expect(entries.map((e) => [e.kind, e.actor, e.result, e.detail])).toEqual([
        ["task.hold_released", "u-admin", "ok", { taskId: "t1" }],
        ["task.hold_set", "u-admin", "ok", { taskId: "t1" }],
      ]);
    });

    it("viewers get 403, anonymous 401, cross-origin 403; nothing changes", async () => {
      expect((await put("t1", { held: true }, AS_VIEWER)).status).toBe(403);
      expect((await put("t1", { held: true }, null)).status).toBe(401);
      const cross = await put("t1", { held: true }, AS_ADMIN, { origin: "https://evil.example" });
      expect(cross.status).toBe(403);
      expect((await cross.json()).error.code).toBe("cross_origin");
      expect(await env.sql.all("select * from task_holds")).toEqual([]);
    });

    it("a bad body is 400 with a code and an unknown task 404, changing nothing", async () => {
      for (const body of [{}, { held: "yes" }, { held: true, until: "2027-01-01" }, "not json"]) {
        const res = await put("t1", body);
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect((await res.json()).error.code).toBe("invalid_request");
      }
      const missing = await put("nope", { held: true });
      expect(missing.status).toBe(404);
      expect((await missing.json()).error.code).toBe("not_found");
      expect((await holdGet(apiRequest("GET", url("nope"), AS_VIEWER), withId("nope"))).status).toBe(404);
      expect(await env.sql.all("select * from task_holds")).toEqual([]);
    });

    it("the export carries the hold and imports again with it; a task that is not held exports as before", async () => {
      const plain = await exportTask(env.rt.stores.workspace, "t1");
      expect(plain).not.toContain('"hold"');
      await put("t1", { held: true });
      const res = await exportGet(apiRequest("GET", "/api/v1/tasks/t1/export", AS_VIEWER), withId("t1"));
      const text = await res.text();
      expect(text).toContain(`"hold": {\n        "heldAt": "${new Date(NOW).toISOString()}",\n        "heldBy": "u-admin"\n      },`);
      // Without the hold member, the document is the plain export.
      expect(text.replace(/\n {6}"hold": \{\n[^}]*\},/, "")).toBe(plain);
      // Into an empty database under other ids: the hold comes along, and exports the same again.
      const renamed = text.replaceAll('"t1"', '"x1"').replaceAll('"s1"', '"xs1"').replaceAll('"u1"', '"xu1"').replaceAll('"m1"', '"xm1"').replaceAll('"m2"', '"xm2"').replaceAll('"r1"', '"xr1"');
      await importFixture(env.rt.stores.workspace, { file: "again.json", text: renamed });
      expect(await (await holdGet(apiRequest("GET", url("x1"), AS_VIEWER), withId("x1"))).json()).toMatchObject({ held: true, heldBy: "u-admin" });
      expect(await exportTask(env.rt.stores.workspace, "x1")).toBe(renamed);
    });
  });
}
