// Black-box thread expiry over the real routes, on both engines (PostgreSQL
// with TEST_POSTGRES_URL): threads written through the thread API, the clock
// passed, analysis, enable with a verified backup, then every route of an
// expired thread and of its run handles answers 410 thread_expired (never a
// bare 404) while a kept thread resumes; roles, bad bodies and the audit.
import { afterEach, describe, expect, it } from "vitest";
import { GET as expiryGet, PUT as expiryPut } from "@/app/api/v1/system/database/checkpoints/thread-expiry/route";
import { POST as expiryAnalyze } from "@/app/api/v1/system/database/checkpoints/thread-expiry/analyze/route";
import { POST as expiryRun } from "@/app/api/v1/system/database/checkpoints/thread-expiry/run/route";
import { POST as expiryCancel } from "@/app/api/v1/system/database/checkpoints/thread-expiry/cancel/route";
import { GET as scheduleGet, PUT as schedulePut } from "@/app/api/v1/system/database/checkpoints/schedule/route";
import { GET as backupsGet } from "@/app/api/v1/system/database/backups/route";
import { GET as auditGet } from "@/app/api/v1/system/audit/route";
import { POST as createThread } from "@/app/api/v1/threads/route";
import { GET as runsGet, POST as runsPost } from "@/app/api/v1/threads/[id]/runs/route";
import { GET as stateGet } from "@/app/api/v1/threads/[id]/state/route";
import { POST as historyPost } from "@/app/api/v1/threads/[id]/history/route";
import { GET as checkpointsGet } from "@/app/api/v1/threads/[id]/checkpoints/route";
import { POST as regeneratePost } from "@/app/api/v1/threads/[id]/regenerate/route";
import { POST as branchPost } from "@/app/api/v1/threads/[id]/branch/route";
import type { ExpiryStatus } from "@/lib/checkpoints/maintenance-api";
import type { SystemEvent } from "@/lib/events/api";
import { TEST_POSTGRES_URL } from "@/server/db/pg/test-db";
import { apiRequest, AS_ADMIN, AS_VIEWER, setUpEngineRouteTestEnv, type EngineRouteTestEnv } from "@/server/http/route-test-support";
import { manualTime } from "@/server/manual-time-test-support";
import { DAY_MS, middayToday, waitFor } from "@/server/checkpoints/schedule/schedule-test-support";

const BASE = "/api/v1/system/database/checkpoints/thread-expiry";
const ctx = (id: string) => ({ params: Promise.resolve({ id }) });

let env: EngineRouteTestEnv | null = null;
afterEach(async () => {
  await env?.dispose();
  env = null;
});

async function json<T = Record<string, unknown>>(response: Response): Promise<{ status: number; body: T }> {
  return { status: response.status, body: (await response.json()) as T };
}

async function newThread(): Promise<{ threadId: string; handles: string[]; answers: string[] }> {
  const { threadId } = (await json<{ threadId: string }>(await createThread(apiRequest("POST", "/api/v1/threads", AS_ADMIN, {})))).body;
  const handles: string[] = [];
  for (const content of ["first question", "second question"]) {
    const run = await json<{ status: string; checkpointId: string }>(await runsPost(apiRequest("POST", `/api/v1/threads/${threadId}/runs`, AS_ADMIN, { input: { content } }), ctx(threadId)));
    expect(run.body.status).toBe("success");
    handles.push(run.body.checkpointId);
  }
  const state = await json<{ values: { messages: Array<{ id: string; type: string }> } }>(await stateGet(apiRequest("GET", `/api/v1/threads/${threadId}/state`, AS_ADMIN), ctx(threadId)));
  return { threadId, handles, answers: state.body.values.messages.filter((m) => m.type === "ai").map((m) => m.id) };
}

const status = async () => (await json<ExpiryStatus>(await expiryGet(apiRequest("GET", BASE, AS_VIEWER)))).body;

for (const { engine, skip } of [
  { engine: "sqlite" as const, skip: false },
  { engine: "postgres" as const, skip: !TEST_POSTGRES_URL },
]) {
  describe.skipIf(skip)(`thread expiry over HTTP [${engine}]`, () => {
    it("enable with a backup, pass the clock: the expired thread and its handles answer 410 thread_expired on every route, the kept thread resumes", { timeout: 240_000 }, async () => {
      const time = manualTime(middayToday());
      env = await setUpEngineRouteTestEnv(engine, "expiry-routes-", { clock: time.clock, timers: time.timers });
      const events: SystemEvent[] = [];
      env.rt.bus.subscribe((event) => void events.push(event));
      const old = await newThread();
      time.clock.advance(100 * DAY_MS);
      const kept = await newThread();
      const age = { value: 90, unit: "days" };

      // Members read; only admins change it; bad bodies are 400 with a code.
      expect((await status()).policy).toMatchObject({ enabled: false, revision: 0 });
      expect((await expiryPut(apiRequest("PUT", BASE, AS_VIEWER, { policy: { enabled: true, age }, expectedRevision: 0, preparation: "backup" }))).status).toBe(403);
      expect((await json(await expiryPut(apiRequest("PUT", BASE, AS_ADMIN, { policy: { enabled: true, age: { value: 0, unit: "days" } }, expectedRevision: 0 })))).body).toMatchObject({ error: { code: "invalid_request" } });
      expect((await json(await expiryPut(apiRequest("PUT", BASE, AS_ADMIN, { policy: { enabled: true, age }, expectedRevision: 0, extra: 1 })))).status).toBe(400);
      const noChoice = await json(await expiryPut(apiRequest("PUT", BASE, AS_ADMIN, { policy: { enabled: true, age }, expectedRevision: 0 })));
      expect(noChoice).toMatchObject({ status: 400, body: { error: { code: "backup_choice_required" } } });

      // Analysis first: what the period would delete.
      const analysis = await json<{ operationId: string }>(await expiryAnalyze(apiRequest("POST", `${BASE}/analyze`, AS_ADMIN, { age })));
      expect(analysis.status).toBe(202);
      const analyzed = await waitFor(async () => ((await status()).latestAnalysis?.id === analysis.body.operationId ? (await status()).latestAnalysis : null));
      expect(analyzed).toMatchObject({ state: "succeeded", threads: 1, threadsScanned: 2 });

      // Enable with a verified backup: the pass runs after it.
      const saved = await json<ExpiryStatus>(await expiryPut(apiRequest("PUT", BASE, AS_ADMIN, { policy: { enabled: true, age }, expectedRevision: 0, preparation: "backup", outsideWindow: true })));
      expect(saved.status).toBe(200);
      expect(saved.body.preparation).toMatchObject({ choice: "backup" });
      const run = await waitFor(async () => (await status()).latestRun, { what: "the first pass" });
      expect(run).toMatchObject({ kind: "thread_expiry", state: "succeeded", threads: 1, checkpoints: analyzed.checkpoints, bytes: analyzed.bytes });
      const after = await status();
      expect(after).toMatchObject({ armed: true, expiredThreads: 1, preparation: { state: "ready", choice: "backup" } });
      const receipt = after.preparation.receipt as { name: string };
      const backups = (await json<{ backups: Array<{ name: string; pinned: boolean }> }>(await backupsGet(apiRequest("GET", "/api/v1/system/database/backups", AS_VIEWER)))).body.backups;
      expect(backups.find((b) => b.name === receipt.name)).toMatchObject({ pinned: true });

      // Every route of the expired thread answers 410 with its tombstone, for members and admins.
      const gone = [
        await stateGet(apiRequest("GET", `/api/v1/threads/${old.threadId}/state`, AS_VIEWER), ctx(old.threadId)),
        await runsGet(apiRequest("GET", `/api/v1/threads/${old.threadId}/runs`, AS_VIEWER), ctx(old.threadId)),
        await historyPost(apiRequest("POST", `/api/v1/threads/${old.threadId}/history`, AS_VIEWER, { limit: 10 }), ctx(old.threadId)),
        await checkpointsGet(apiRequest("GET", `/api/v1/threads/${old.threadId}/checkpoints`, AS_VIEWER), ctx(old.threadId)),
        await runsPost(apiRequest("POST", `/api/v1/threads/${old.threadId}/runs`, AS_ADMIN, { input: { content: "hello again" } }), ctx(old.threadId)),
        ...(await Promise.all(old.handles.map((checkpointId) => runsPost(apiRequest("POST", `/api/v1/threads/${old.threadId}/runs`, AS_ADMIN, { input: { content: "resume" }, checkpointId }), ctx(old.threadId))))),
        await regeneratePost(apiRequest("POST", `/api/v1/threads/${old.threadId}/regenerate`, AS_ADMIN, { messageId: old.answers[0] }), ctx(old.threadId)),
        await branchPost(apiRequest("POST", `/api/v1/threads/${old.threadId}/branch`, AS_ADMIN, { messageId: old.answers[0] }), ctx(old.threadId)),
      ];
      for (const response of gone) {
        const { status: code, body } = await json<{ error: { code: string; message: string }; threadId: string; expiredAt: string }>(response);
        expect(code).toBe(410);
        expect(body).toMatchObject({ error: { code: "thread_expired" }, threadId: old.threadId, expiredAt: expect.any(String) });
      }
      // The kept thread resumes from its first handle.
      const resumed = await json<{ status: string }>(await runsPost(apiRequest("POST", `/api/v1/threads/${kept.threadId}/runs`, AS_ADMIN, { input: { content: "continue" }, checkpointId: kept.handles[0] }), ctx(kept.threadId)));
      expect(resumed).toMatchObject({ status: 200, body: { status: "success" } });

      // Run now needs the current revision; cancel of nothing is a conflict.
      expect((await json(await expiryRun(apiRequest("POST", `${BASE}/run`, AS_ADMIN, { expectedRevision: 99 })))).body).toMatchObject({ error: { code: "conflict" } });
      expect((await expiryCancel(apiRequest("POST", `${BASE}/cancel`, AS_ADMIN, { operationId: "nothing" }))).status).toBe(409);

      // Audited: the save with its choice, the pass by the server; a completion event for what follows a maintenance operation.
      const audit = (await json<{ entries: Array<{ kind: string; actor: string; result: string; detail: Record<string, unknown> }> }>(await auditGet(apiRequest("GET", "/api/v1/system/audit?limit=200", AS_ADMIN)))).body.entries;
      expect(audit.find((e) => e.kind === "threads.expiry_changed" && e.result === "ok")).toMatchObject({ actor: "u-admin", detail: { choice: "backup", after: { enabled: true, age } } });
      expect(audit.find((e) => e.kind === "threads.expiry_changed" && e.result === "failed")).toBeDefined();
      expect(audit.find((e) => e.kind === "threads.expired")).toMatchObject({ actor: "system", result: "ok", detail: { operationId: run.id, threads: 1 } });
      expect(events.find((e) => e.type === "maintenance_finished")).toMatchObject({ kind: "thread_expiry", operationId: run.id, state: "succeeded", removedBytes: run.bytes });
      // No content in events: ids, states and counts only.
      expect(JSON.stringify(events)).not.toContain("first question");
    });

    it("automatic cleanup: members read, admins switch it, a stale revision is a conflict", async () => {
      env = await setUpEngineRouteTestEnv(engine, "schedule-routes-");
      const read = await json<{ policy: { enabled: boolean; revision: number }; nextDueAt: string | null }>(await scheduleGet(apiRequest("GET", "/api/v1/system/database/checkpoints/schedule", AS_VIEWER)));
      expect(read).toMatchObject({ status: 200, body: { policy: { enabled: false, revision: 0 }, nextDueAt: null } });
      expect((await schedulePut(apiRequest("PUT", "/api/v1/system/database/checkpoints/schedule", AS_VIEWER, { policy: { enabled: true }, expectedRevision: 0 }))).status).toBe(403);
      const on = await json<{ policy: { enabled: boolean; revision: number }; nextDueAt: string | null }>(await schedulePut(apiRequest("PUT", "/api/v1/system/database/checkpoints/schedule", AS_ADMIN, { policy: { enabled: true }, expectedRevision: 0 })));
      expect(on).toMatchObject({ status: 200, body: { policy: { enabled: true, revision: 1 }, nextDueAt: expect.any(String) } });
      const stale = await json(await schedulePut(apiRequest("PUT", "/api/v1/system/database/checkpoints/schedule", AS_ADMIN, { policy: { enabled: false }, expectedRevision: 0 })));
      expect(stale).toMatchObject({ status: 409, body: { error: { code: "conflict" } } });
      expect((await schedulePut(apiRequest("PUT", "/api/v1/system/database/checkpoints/schedule", AS_ADMIN, { policy: { enabled: "yes" }, expectedRevision: 1 }))).status).toBe(400);
    });
  });
}
