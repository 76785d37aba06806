// TPR-OBS-03 / TPR-API-07 / TPR-UI-16: a unique string placed in payloads and
// task titles never appears in logs, events, status or error bodies, through
// a whole analysis, preparation and cleanup cycle over the real routes.
// The same black-box flow runs on every engine (import a fixture, analyze,
// enable with a backup, cleanup, export, 410, status) and must give
// identical results on SQLite and PostgreSQL.
import { Writable } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { GET, PUT } from "@/app/api/v1/system/database/tool-payload-retention/route";
import { POST as analyze } from "@/app/api/v1/system/database/tool-payload-retention/analyze/route";
import { POST as run } from "@/app/api/v1/system/database/tool-payload-retention/run/route";
import { GET as shellOutput } from "@/app/api/v1/messages/[id]/shell-output/route";
import { GET as exportTask } from "@/app/api/v1/tasks/[id]/export/route";
import { GET as listBackups } from "@/app/api/v1/system/database/backups/route";
import { manualClock } from "@/server/clock";
import { TEST_POSTGRES_URL } from "@/server/db/pg/test-db";
import { AS_ADMIN, AS_VIEWER, apiRequest, setUpEngineRouteTestEnv, type EngineRouteTestEnv } from "@/server/http/route-test-support";
import { createLogger } from "@/server/log";
import { importFixture } from "@/server/workspace/fixture/import-fixture";
import { shellMetadata } from "./test-support";

const CANARY = "CANARY-7f3a9c-do-not-leak";
const BASE = "/api/v1/system/database/tool-payload-retention";
const NOW = Date.UTC(2026, 5, 1, 12, 0, 0);
const OLD = "2026-01-02T10:00:00Z";

/** What the flow observed on one engine, compared across engines at the end. */
type FlowResult = { analysis: unknown; latestRun: unknown; exported: string; gone: unknown; backups: number };
const results = new Map<string, FlowResult>();

function canaryFixture(): string {
  const message = (i: number) => `{ "id": "m-canary-${i}", "turnId": "u-canary", "authorType": "agent", "type": "tool_execute", "content": "tool",
      "metadata": ${shellMetadata(`c-${i}`, `token=${CANARY} `.repeat(200))}, "createdAt": "${OLD}", "updatedAt": "${OLD}" }`;
  return `{ "format": "workspace-fixture", "version": 1, "tasks": [
    { "id": "t-canary", "title": "Fix ${CANARY} in prod", "state": "COMPLETED", "createdAt": "${OLD}", "updatedAt": "${OLD}", "queuedForStep": false,
      "sessions": [ { "id": "s-canary", "state": "COMPLETED", "startedAt": "${OLD}", "updatedAt": "${OLD}", "completedAt": "${OLD}",
        "turns": [ { "id": "u-canary", "startedAt": "${OLD}", "completedAt": "${OLD}" } ],
        "messages": [ ${[0, 1, 2].map(message).join(", ")} ],
        "queuedMessages": [], "runs": [ { "id": "r-canary", "state": "SUCCEEDED" } ] } ] } ] }`;
}

const engines = [
  { engine: "sqlite" as const, skip: false },
  { engine: "postgres" as const, skip: !TEST_POSTGRES_URL },
];

for (const { engine, skip } of engines) {
  describe.skipIf(skip)(`canary [${engine}]`, () => {
    let env: EngineRouteTestEnv;
    let logText: string;
    let seen: string[];
    let unsubscribe: () => void;

    beforeEach(async () => {
      logText = "";
      seen = [];
      const sink = new Writable({
        write(chunk, _enc, done) {
          logText += chunk.toString();
          done();
        },
      });
      env = await setUpEngineRouteTestEnv(engine, "canary-", { log: createLogger({ level: "trace", destination: sink }), clock: manualClock(NOW) });
      unsubscribe = env.rt.bus.subscribe((event) => seen.push(JSON.stringify(event)));
    });

    afterEach(async () => {
      unsubscribe();
      await env.dispose();
    });

    async function seedCanaryWorkspace() {
      const store = env.rt.stores.workspace;
      await importFixture(store, { file: "canary.json", text: canaryFixture() });
      // A malformed row (no fixture can carry one): its parse error must not quote the text either.
      await store.writeTransaction((tx) =>
        tx.insertMessage({
          id: "m-bad",
          sessionId: "s-canary",
          turnId: "u-canary",
          authorType: "agent",
          type: "tool_execute",
          content: "tool",
          metadata: `{"normalized": ${CANARY}`,
          toolCallId: null,
          createdAt: OLD,
          updatedAt: OLD,
        }),
      );
    }

    it("[TPR-OBS-03] [TPR-API-07] [TPR-UI-16] payloads and titles never reach logs, events, status or errors", async () => {
      await seedCanaryWorkspace();
      const bodies: string[] = [];
      const collect = async (response: Response) => {
        bodies.push(await response.text());
        return response;
      };
      await collect(await analyze(apiRequest("POST", `${BASE}/analyze`, AS_ADMIN, { age: { value: 1, unit: "weeks" } })));
      await env.rt.compaction.idle();
      const analysis = JSON.parse(await (await GET(apiRequest("GET", BASE, AS_VIEWER))).text()).latestAnalysis;
      await collect(await PUT(apiRequest("PUT", BASE, AS_ADMIN, { policy: { enabled: true, age: { value: 1, unit: "weeks" } }, expectedRevision: 0, preparation: "backup" })));
      await env.rt.compaction.idle();
      await collect(await run(apiRequest("POST", `${BASE}/run`, AS_ADMIN, { expectedRevision: 0 })));
      await env.rt.compaction.idle();
      await collect(await GET(apiRequest("GET", BASE, AS_VIEWER)));
      await collect(await shellOutput(apiRequest("GET", "/api/v1/messages/m-canary-0/shell-output", AS_VIEWER), { params: Promise.resolve({ id: "m-canary-0" }) }));
      await collect(await shellOutput(apiRequest("GET", "/api/v1/messages/m-bad/shell-output", AS_VIEWER), { params: Promise.resolve({ id: "m-bad" }) }));
      const exported = await (await exportTask(apiRequest("GET", "/api/v1/tasks/t-canary/export", AS_VIEWER), { params: Promise.resolve({ id: "t-canary" }) })).text();
      const backups = JSON.parse(await (await listBackups(apiRequest("GET", "/api/v1/system/database/backups", AS_ADMIN))).text()).backups.length;

      const status = JSON.parse(bodies[3]!);
      expect(status.latestRun).toMatchObject({ state: "succeeded", changedMessages: 3 });
      const gone = JSON.parse(bodies[4]!);
      expect(gone.error.code).toBe("tool_payload_removed");
      expect(seen.some((e) => e.includes("messages_changed"))).toBe(true);
      expect(logText).toContain("compaction pass ended");
      expect(backups).toBe(1);

      for (const text of [...bodies, ...seen, logText]) expect(text).not.toContain(CANARY);
      // The stored rows no longer hold the payload either (the title is not a payload).
      expect(exported.replace(`Fix ${CANARY} in prod`, "")).not.toContain(CANARY);

      // Operation ids are random: everything else must match across engines.
      const withoutId = (operation: Record<string, unknown> | null) => ({ ...operation, id: undefined });
      results.set(engine, { analysis: withoutId(analysis), latestRun: withoutId(status.latestRun), exported, gone, backups });
    });
  });
}

// Declared after both engine suites, so it runs after them (files run their tests in order).
describe.skipIf(!TEST_POSTGRES_URL)("canary flow across engines", () => {
  it("the same flow gives identical results on SQLite and PostgreSQL (byte-identical export)", () => {
    const sqlite = results.get("sqlite");
    const postgres = results.get("postgres");
    expect(sqlite && postgres).toBeTruthy();
    expect(sqlite!.analysis).toMatchObject({ state: "succeeded", kind: "analysis" });
    expect(postgres!.exported).toBe(sqlite!.exported);
    expect(postgres).toEqual(sqlite);
  });
});
