// A per-task restore holds the maintenance guard from its start to its end
// (TPR-SCH-05): between its batches too, a cleanup batch cannot take the guard (it
// defers), a backup answers maintenance_busy, and a second restore is
// refused; the guard is free again once it ends, and the runtime's stop()
// ends a running restore at its next batch with what committed kept.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PUT as putPolicy } from "@/app/api/v1/system/database/tool-payload-retention/route";
import { POST as backupsCreate } from "@/app/api/v1/system/database/backups/route";
import { AS_ADMIN, apiRequest, setUpRouteTestEnv, type RouteTestEnv } from "@/server/http/route-test-support";
import { importFixture } from "@/server/workspace/fixture/import-fixture";
import { shellMetadata } from "../test-support";
import { readRestoreOperation, startPayloadRestore } from "./service";

const OLD = "2024-01-02T10:00:00Z";

function fixture(rows: number): string {
  const messages = Array.from(
    { length: rows },
    (_, i) => `{ "id": "g-m${i}", "turnId": "g-u", "authorType": "agent", "type": "tool_execute", "content": "tool",
      "metadata": ${shellMetadata(`g-c${i}`, `line ${i}\\n`.repeat(100))}, "createdAt": "${OLD}", "updatedAt": "${OLD}" }`,
  );
  return `{ "format": "workspace-fixture", "version": 1, "tasks": [ { "id": "g", "title": "t", "state": "COMPLETED", "createdAt": "${OLD}", "updatedAt": "${OLD}",
    "queuedForStep": false, "sessions": [ { "id": "g-s", "state": "COMPLETED", "startedAt": "${OLD}", "updatedAt": "${OLD}", "completedAt": "${OLD}",
    "turns": [ { "id": "g-u", "startedAt": "${OLD}", "completedAt": "${OLD}" } ], "messages": [ ${messages.join(", ")} ], "queuedMessages": [], "runs": [] } ] } ] }`;
}

describe("a per-task restore and the maintenance guard", () => {
  let env: RouteTestEnv;
  let gate: { reached: Promise<void>; open: () => void };
  beforeEach(async () => {
    env = await setUpRouteTestEnv("restore-guard-", { payloadRestore: { batch: { rows: 2, bytes: 8 * 1024 * 1024 } } });
    await importFixture(env.rt.stores.workspace, { file: "g.json", text: fixture(10) });
    const put = await putPolicy(
      apiRequest("PUT", "/api/v1/system/database/tool-payload-retention", AS_ADMIN, { policy: { enabled: true, age: { value: 1, unit: "weeks" } }, expectedRevision: 0, preparation: "backup" }),
    );
    expect(put.status).toBe(200);
    await env.rt.compaction.idle();
    // After the first batch committed, the next batch waits at the gate before
    // it reads (outside any transaction: the restore is between two batches).
    let reach!: () => void;
    let open!: () => void;
    const reached = new Promise<void>((resolve) => (reach = resolve));
    const opened = new Promise<void>((resolve) => (open = resolve));
    gate = { reached, open };
    let commits = 0;
    env.rt.bus.subscribe((event) => {
      if (event.type === "messages_changed") commits += 1;
    });
    const store = env.rt.stores.restores;
    let gated = false;
    env.rt.stores.restores = {
      ...store,
      readRows: async (rowids) => {
        if (commits === 1 && !gated) {
          gated = true;
          reach();
          await opened;
        }
        return store.readRows(rowids);
      },
    };
  });
  afterEach(() => env.dispose());

  it("[TPR-SCH-05] batches defer, a backup is maintenance_busy and a second restore is refused while it runs; the guard is free after", async () => {
    const started = await startPayloadRestore(env.rt, { taskId: "g", body: {}, actor: "u-admin" });
    await gate.reached;
    expect(await env.rt.guard.tryAcquire({ owner: "cleanup:batch", kind: "compaction" })).toBeNull();
    expect((await env.rt.guard.holder())?.kind).toBe("payload_restore");
    const backup = await backupsCreate(apiRequest("POST", "/api/v1/system/database/backups", AS_ADMIN, {}));
    expect(backup.status).toBe(503);
    expect((await backup.json()).error.code).toBe("maintenance_busy");
    const second = await startPayloadRestore(env.rt, { taskId: "g", body: {}, actor: "u-admin" }).catch((error: { code?: string }) => error.code);
    expect(second).toBe("operation_active");
    expect((await readRestoreOperation(env.rt, started.operationId)).state).toBe("running");
    gate.open();
    await started.done;
    expect(await readRestoreOperation(env.rt, started.operationId)).toMatchObject({ state: "succeeded", restoredMessages: 10 });
    const lease = await env.rt.guard.tryAcquire({ owner: "cleanup:batch", kind: "compaction" });
    expect(lease).not.toBeNull();
    lease!.release();
  });

  it("stop() ends a running restore at its next batch: partial, what committed kept", async () => {
    const started = await startPayloadRestore(env.rt, { taskId: "g", body: {}, actor: "u-admin" });
    await gate.reached;
    const stopping = env.rt.payloadRestores.stopAll();
    gate.open();
    await stopping;
    const operation = await readRestoreOperation(env.rt, started.operationId);
    expect(operation).toMatchObject({ state: "partial", errorCode: "stopped", restoredMessages: 4 });
    const restored = env.rt.handle.sqlite.prepare("select count(*) as n from messages where metadata not like '%\"payload_retention\"%'").get() as { n: number };
    expect(restored.n).toBe(4);
  });
});
