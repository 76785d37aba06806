// TPR-OBS-03 / TPR-API-07 / TPR-UI-16: a unique string placed in payloads and
// task titles never appears in logs, events, status or error bodies, through
// a whole analysis, preparation and cleanup cycle over the real routes.
import { Writable } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { GET, PUT } from "@/app/api/v1/system/database/tool-payload-retention/route";
import { POST as analyze } from "@/app/api/v1/system/database/tool-payload-retention/analyze/route";
import { POST as run } from "@/app/api/v1/system/database/tool-payload-retention/run/route";
import { GET as shellOutput } from "@/app/api/v1/messages/[id]/shell-output/route";
import { AS_ADMIN, AS_VIEWER, apiRequest, setUpRouteTestEnv, type RouteTestEnv } from "@/server/http/route-test-support";
import { createLogger } from "@/server/log";
import { insertMessage, insertSession, insertTask, insertTurn, shellMetadata } from "./test-support";

const CANARY = "CANARY-7f3a9c-do-not-leak";
const BASE = "/api/v1/system/database/tool-payload-retention";

let env: RouteTestEnv;
let logText: string;
let seen: string[];
let unsubscribe: () => void;

beforeEach(() => {
  logText = "";
  seen = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      logText += chunk.toString();
      done();
    },
  });
  env = setUpRouteTestEnv("canary-", { log: createLogger({ level: "trace", destination: sink }) });
  unsubscribe = env.rt.bus.subscribe((event) => seen.push(JSON.stringify(event)));
});

afterEach(async () => {
  unsubscribe();
  await env.dispose();
});

function seedCanaryWorkspace() {
  const sqlite = env.rt.handle.sqlite;
  insertTask(sqlite, { id: "t-canary" });
  sqlite.prepare("update tasks set title = ? where id = 't-canary'").run(`Fix ${CANARY} in prod`);
  insertSession(sqlite, { id: "s-canary", taskId: "t-canary" });
  insertTurn(sqlite, { id: "u-canary", sessionId: "s-canary" });
  for (let i = 0; i < 3; i += 1) {
    insertMessage(sqlite, { id: `m-canary-${i}`, sessionId: "s-canary", turnId: "u-canary", metadata: shellMetadata(`c-${i}`, `token=${CANARY} `.repeat(200)) });
  }
  // A malformed row: its parse error must not quote the text either.
  insertMessage(sqlite, { id: "m-bad", sessionId: "s-canary", turnId: "u-canary", metadata: `{"normalized": ${CANARY}` });
}

describe("canary", () => {
  it("[TPR-OBS-03] [TPR-API-07] [TPR-UI-16] payloads and titles never reach logs, events, status or errors", async () => {
    seedCanaryWorkspace();
    const bodies: string[] = [];
    const collect = async (response: Response) => {
      bodies.push(await response.text());
      return response;
    };
    await collect(await analyze(apiRequest("POST", `${BASE}/analyze`, AS_ADMIN, { age: { value: 1, unit: "weeks" } })));
    await env.rt.compaction.idle();
    await collect(await PUT(apiRequest("PUT", BASE, AS_ADMIN, { policy: { enabled: true, age: { value: 1, unit: "weeks" } }, expectedRevision: 0, preparation: "backup" })));
    await env.rt.compaction.idle();
    await collect(await run(apiRequest("POST", `${BASE}/run`, AS_ADMIN, { expectedRevision: 0 })));
    await collect(await GET(apiRequest("GET", BASE, AS_VIEWER)));
    await collect(await shellOutput(apiRequest("GET", "/api/v1/messages/m-canary-0/shell-output", AS_VIEWER), { params: Promise.resolve({ id: "m-canary-0" }) }));
    await collect(await shellOutput(apiRequest("GET", "/api/v1/messages/m-bad/shell-output", AS_VIEWER), { params: Promise.resolve({ id: "m-bad" }) }));

    const status = JSON.parse(bodies[3]!);
    expect(status.latestRun).toMatchObject({ state: "succeeded", changedMessages: 3 });
    expect(JSON.parse(bodies[4]!).error.code).toBe("tool_payload_removed");
    expect(seen.some((e) => e.includes("messages_changed"))).toBe(true);
    expect(logText).toContain("retention pass ended");

    for (const text of [...bodies, ...seen, logText]) expect(text).not.toContain(CANARY);
    // The stored rows no longer hold the payload either.
    const stored = env.rt.handle.sqlite.prepare("select metadata from messages where id like 'm-canary-%'").pluck().all() as string[];
    for (const metadata of stored) expect(metadata).not.toContain(CANARY);
  });
});
