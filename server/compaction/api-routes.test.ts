import net from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { GET, PUT } from "@/app/api/v1/system/database/tool-payload-retention/route";
import { POST as analyze } from "@/app/api/v1/system/database/tool-payload-retention/analyze/route";
import { POST as run } from "@/app/api/v1/system/database/tool-payload-retention/run/route";
import { POST as cancel } from "@/app/api/v1/system/database/tool-payload-retention/cancel/route";
import { TEST_POSTGRES_URL } from "@/server/db/pg/test-db";
import { AS_ADMIN, AS_VIEWER, apiRequest, setUpEngineRouteTestEnv, type EngineRouteTestEnv, type Who } from "@/server/http/route-test-support";

const BASE = "/api/v1/system/database/tool-payload-retention";

// The same suite on every engine.
for (const { engine, skip } of [
  { engine: "sqlite" as const, skip: false },
  { engine: "postgres" as const, skip: !TEST_POSTGRES_URL },
]) {
describe.skipIf(skip)(`[${engine}]`, () => {
let env: EngineRouteTestEnv;

beforeEach(async () => {
  env = await setUpEngineRouteTestEnv(engine, "retention-routes-");
});
afterEach(() => env.dispose());

function settingsSnapshot() {
  return env.sql.all("select key, value from settings");
}

const put = (who: Who, body: unknown, headers?: Record<string, string>) => PUT(apiRequest("PUT", BASE, who, body, headers));
const enableSkip = { policy: { enabled: true, age: { value: 3, unit: "months" } }, expectedRevision: 0, preparation: "skip" };

describe("tool-payload-compaction API", () => {
  it("[TPR-API-01] [TPR-API-06] GET answers any member with the status and writes nothing", async () => {
    for (const who of [AS_ADMIN, AS_VIEWER] as const) {
      const res = await GET(apiRequest("GET", BASE, who));
      expect(res.status).toBe(200);
      const body = await res.json();
      expect(body).toMatchObject({
        capability: "supported",
        policy: { enabled: false, age: { value: 3, unit: "months" }, revision: 0 },
        preparation: { state: "none", choice: null, receipt: null, errorCode: null },
        latestAnalysis: null,
        latestRun: null,
        activeOperation: null,
        nextDueAt: null,
        lastErrorCode: null,
      });
    }
    expect(await settingsSnapshot()).toEqual([]);
    expect((await GET(apiRequest("GET", BASE, null))).status).toBe(401);
  });

  it("[TPR-API-02] [TPR-UI-16] PUT is admin-only; a viewer gets 403 and nothing changes", async () => {
    const res = await put(AS_VIEWER, enableSkip);
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ error: { code: "forbidden", message: expect.any(String) } });
    expect(await settingsSnapshot()).toEqual([]);
    const ok = await put(AS_ADMIN, enableSkip);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ policy: { enabled: true, revision: 1 }, preparation: { state: "ready", choice: "skip" } });
  });

  it.each([
    ["unknown field", { ...enableSkip, extra: 1 }],
    ["unit", { ...enableSkip, policy: { enabled: true, age: { value: 3, unit: "days" } } }],
    ["range", { ...enableSkip, policy: { enabled: true, age: { value: 521, unit: "weeks" } } }],
    ["months range", { ...enableSkip, policy: { enabled: true, age: { value: 121, unit: "months" } } }],
    ["fraction", { ...enableSkip, policy: { enabled: true, age: { value: 1.5, unit: "months" } } }],
    ["nested unknown", { ...enableSkip, policy: { enabled: true, age: { value: 3, unit: "months", x: 1 } } }],
    ["bad json", "{not json"],
  ])("[TPR-API-08] [TPR-POL-02] PUT with a bad body (%s) is 400 and changes nothing", async (_name, body) => {
    const res = await put(AS_ADMIN, body);
    expect(res.status).toBe(400);
    expect((await res.json()).error.code).toBe("invalid_request");
    expect(await settingsSnapshot()).toEqual([]);
  });

  it("[TPR-API-08] a body over 1 MiB is 400 and changes nothing", async () => {
    const res = await put(AS_ADMIN, JSON.stringify({ ...enableSkip, pad: "x".repeat(1024 * 1024) }));
    expect(res.status).toBe(400);
    expect(await settingsSnapshot()).toEqual([]);
  });

  it("[TPR-API-08] enabling without a backup choice is 400 backup_choice_required", async () => {
    const res = await put(AS_ADMIN, { policy: enableSkip.policy, expectedRevision: 0 });
    expect(res.status).toBe(400);
    expect((await res.json()).error.code).toBe("backup_choice_required");
    expect(await settingsSnapshot()).toEqual([]);
  });

  it("[TPR-POL-03] a stale revision is 409 conflict", async () => {
    expect((await put(AS_ADMIN, enableSkip)).status).toBe(200);
    const res = await put(AS_ADMIN, { policy: { enabled: false, age: { value: 1, unit: "weeks" } }, expectedRevision: 0 });
    expect(res.status).toBe(409);
    expect((await res.json()).error.code).toBe("conflict");
  });

  it("[TPR-POL-05] a malformed record can be replaced with its revision (turn off, defaults), never enabled without a choice, and nothing is deleted", async () => {
    await env.sql.exec(`insert into tasks (id,title,state,created_at,updated_at) values ('t','x','COMPLETED','2020-01-01T00:00:00Z','2020-01-01T00:00:00Z');
      insert into task_sessions (id,task_id,state,updated_at) values ('s','t','COMPLETED','2020-01-01T00:00:00Z');
      insert into messages (id,session_id,author_type,type,metadata,created_at,updated_at) values ('m','s','agent','tool_execute','{"a":1}','2020-01-01T00:00:00Z','2020-01-01T00:00:00Z');`);
    const messages = () => env.sql.all("select metadata from messages");
    const before = await messages();
    const damaged = JSON.stringify({ version: 1, policy: { enabled: "yes", age: { value: 3, unit: "months" }, revision: 7 } });
    await env.sql.run("insert into settings (key, value, updated_at_ms) values ('tool_payload_retention', ?, 0)", [damaged]);
    const status = await (await GET(apiRequest("GET", BASE, AS_ADMIN))).json();
    expect(status).toMatchObject({ recordState: "malformed", lastErrorCode: "settings_malformed", policy: { enabled: false, revision: 7 } });

    // Enabling the replacement still needs the backup choice; a stale revision is a conflict.
    const enable = await put(AS_ADMIN, { policy: { enabled: true, age: { value: 3, unit: "months" } }, expectedRevision: 7 });
    expect(enable.status).toBe(400);
    expect((await enable.json()).error.code).toBe("backup_choice_required");
    const stale = await put(AS_ADMIN, { policy: { enabled: false, age: { value: 3, unit: "months" } }, expectedRevision: 6 });
    expect(stale.status).toBe(409);
    expect((await stale.json()).error.code).toBe("conflict");
    expect(await settingsSnapshot()).toEqual([{ key: "tool_payload_retention", value: damaged }]);

    // "Turn off": the replacement is a valid, disabled, unapproved record.
    const off = await put(AS_ADMIN, { policy: { enabled: false, age: { value: 3, unit: "months" } }, expectedRevision: 7 });
    expect(off.status).toBe(200);
    expect(await off.json()).toMatchObject({ recordState: "ok", policy: { enabled: false, revision: 8 }, armed: false, preparation: { state: "none" } });
    expect(await messages()).toEqual(before);
  });

  it("a foreign Origin is 403 on mutations", async () => {
    const res = await put(AS_ADMIN, enableSkip, { origin: "https://evil.example" });
    expect(res.status).toBe(403);
    expect((await res.json()).error.code).toBe("cross_origin");
    expect(await settingsSnapshot()).toEqual([]);
  });

  it("[TPR-API-03] [TPR-API-09] analyze is admin-only, 202 with an operation id, duplicate active is 409", async () => {
    expect((await analyze(apiRequest("POST", `${BASE}/analyze`, AS_VIEWER, { age: { value: 2, unit: "weeks" } }))).status).toBe(403);
    const first = await analyze(apiRequest("POST", `${BASE}/analyze`, AS_ADMIN, { age: { value: 2, unit: "weeks" } }));
    expect(first.status).toBe(202);
    const { operationId } = await first.json();
    expect(operationId).toEqual(expect.any(String));
    await env.rt.compaction.idle();
    const status = await (await GET(apiRequest("GET", BASE, AS_VIEWER))).json();
    expect(status.latestAnalysis).toMatchObject({ id: operationId, state: "succeeded", fingerprint: "weeks:2" });
    // Another operation holds the active slot (as a running pass would).
    const stored = JSON.parse((await env.sql.all<{ value: string }>("select value from settings"))[0]!.value);
    stored.runtime.activeOperation = { ...status.latestAnalysis, id: "op-running", kind: "cleanup", state: "running", finishedAt: null };
    await env.sql.run("update settings set value = ?", [JSON.stringify(stored)]);
    const before = await settingsSnapshot();
    const second = await analyze(apiRequest("POST", `${BASE}/analyze`, AS_ADMIN, { age: { value: 2, unit: "weeks" } }));
    expect(second.status).toBe(409);
    expect((await second.json()).error.code).toBe("operation_active");
    expect(await settingsSnapshot()).toEqual(before);
  });

  it("[TPR-API-04] run needs the enabled, approved revision: 409 otherwise, 202 when armed", async () => {
    const refused = await run(apiRequest("POST", `${BASE}/run`, AS_ADMIN, { expectedRevision: 0 }));
    expect(refused.status).toBe(409);
    expect((await refused.json()).error.code).toBe("cleanup_not_approved");
    await put(AS_ADMIN, enableSkip);
    await env.rt.compaction.idle();
    const accepted = await run(apiRequest("POST", `${BASE}/run`, AS_ADMIN, { expectedRevision: 1 }));
    expect(accepted.status).toBe(202);
    expect(await accepted.json()).toEqual({ operationId: expect.any(String) });
    await env.rt.compaction.idle();
  });

  it("[TPR-API-05] cancel needs the active operation id", async () => {
    const res = await cancel(apiRequest("POST", `${BASE}/cancel`, AS_ADMIN, { operationId: "nope" }));
    expect(res.status).toBe(409);
    expect((await cancel(apiRequest("POST", `${BASE}/cancel`, AS_ADMIN, { operationId: "" }))).status).toBe(400);
  });

  it("[TPR-POL-07] a PostgreSQL server that cannot be reached: GET says unsupported, mutations are 501, the password never shows", async () => {
    // A port nobody listens on: the connection is refused at once.
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as net.AddressInfo).port;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    env.useUnsupportedEngine(`postgres://user:secret@127.0.0.1:${port}/db`);
    const res = await GET(apiRequest("GET", BASE, AS_ADMIN));
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ capability: "unsupported" });
    for (const response of [
      await put(AS_ADMIN, enableSkip),
      await analyze(apiRequest("POST", `${BASE}/analyze`, AS_ADMIN, { age: { value: 2, unit: "weeks" } })),
      await run(apiRequest("POST", `${BASE}/run`, AS_ADMIN, { expectedRevision: 0 })),
      await cancel(apiRequest("POST", `${BASE}/cancel`, AS_ADMIN, { operationId: "x" })),
    ]) {
      expect(response.status).toBe(501);
      const body = await response.json();
      expect(body.error.code).toBe("unsupported_engine");
      expect(JSON.stringify(body)).not.toContain("secret");
    }
  });
});
});
}
