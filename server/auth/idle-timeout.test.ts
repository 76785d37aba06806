// The idle timeout beside the absolute one, with the clock moved by hand:
// a session unused for SESSION_IDLE_MINUTES answers 401, any request starts
// the wait again (the event stream does not), and activity never outlasts
// the absolute lifetime. On both engines: the last-activity write and the
// idle check are each store's own SQL.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { GET as meGet } from "@/app/api/v1/auth/me/route";
import { GET as eventsGet } from "@/app/api/v1/system/events/route";
import { manualClock } from "@/server/clock";
import { apiRequest } from "@/server/http/route-test-support";
import { createLogger } from "@/server/log";
import { TEST_POSTGRES_URL } from "@/server/db/pg/test-db";
import { createEngineTestRuntime, type EngineTestRuntime } from "@/server/runtime-test-support";
import { SESSION_COOKIE } from "./current-user";
import { DEFAULT_IDLE_MINUTES, SESSION_TTL_MS, sessionPolicyFromEnv } from "./session-policy";
import { createSession, pruneSessions } from "./sessions";
import { createUser } from "./users";

const MIN = 60_000;

for (const { engine, skip } of [
  { engine: "sqlite" as const, skip: false },
  { engine: "postgres" as const, skip: !TEST_POSTGRES_URL },
]) {
  describe.skipIf(skip)(`idle timeout [${engine}]`, () => {
    let rt: EngineTestRuntime;
    let clock: ReturnType<typeof manualClock>;
    let cookie: string;

    beforeEach(async () => {
      clock = manualClock(Date.parse("2026-03-01T10:00:00Z"));
      rt = await createEngineTestRuntime(engine, { prefix: "idle-timeout-", install: true, clock, env: { SESSION_IDLE_MINUTES: "30" } });
      const { id } = await createUser(rt.stores.auth, { email: "idle@example.com", role: "viewer", password: "long-enough-password", nowMs: clock.now() });
      cookie = `${SESSION_COOKIE}=${(await createSession(rt.stores.auth, { userId: id, nowMs: clock.now() })).token}`;
    });
    afterEach(async () => rt.dispose());

    const me = async () => (await meGet(apiRequest("GET", "/api/v1/auth/me", cookie as never))).status;

    it("[#26-4] ends a session 30 idle minutes after its last request, and a request restarts the wait", async () => {
      clock.advance(29 * MIN);
      expect(await me()).toBe(200);
      clock.advance(29 * MIN);
      expect(await me()).toBe(200);
      clock.advance(30 * MIN);
      expect(await me()).toBe(401);
    });

    it("[#26-4] does not count an open event stream, or reconnecting one, as activity", async () => {
      clock.advance(20 * MIN);
      const abort = new AbortController();
      const stream = await eventsGet(new Request("http://localhost:3000/api/v1/system/events", { headers: { cookie }, signal: abort.signal }));
      expect(stream.status).toBe(200);
      abort.abort();
      clock.advance(11 * MIN);
      expect(await me()).toBe(401);
    });

    it("[#26-4] never outlasts the absolute lifetime, however active", async () => {
      for (let elapsed = 0; elapsed + 20 * MIN < SESSION_TTL_MS; elapsed += 20 * MIN) {
        clock.advance(20 * MIN);
        expect(await me()).toBe(200);
      }
      clock.advance(20 * MIN);
      expect(await me()).toBe(401);
    });

    it("[#26-4] prunes idle sessions with the expired and revoked ones", async () => {
      clock.advance(31 * MIN);
      expect(await pruneSessions(rt.stores.auth, { policy: rt.sessionPolicy, nowMs: clock.now() })).toBe(1);
    });
  });
}

describe("idle timeout setting", () => {
  it("[#26-4] reads SESSION_IDLE_MINUTES: a value in range, 0 for none, anything else the default with a warning", async () => {
    const lines: string[] = [];
    const log = createLogger({ level: "warn", destination: { write: (line: string) => void lines.push(line) } });
    expect(sessionPolicyFromEnv({}, log).idleMs).toBe(DEFAULT_IDLE_MINUTES * MIN);
    expect(sessionPolicyFromEnv({ SESSION_IDLE_MINUTES: "90" }, log).idleMs).toBe(90 * MIN);
    expect(sessionPolicyFromEnv({ SESSION_IDLE_MINUTES: "0" }, log).idleMs).toBeGreaterThan(SESSION_TTL_MS);
    for (const bad of ["4", "10081", "30m", "-5", "1e3", " "]) {
      expect(sessionPolicyFromEnv({ SESSION_IDLE_MINUTES: bad }, log).idleMs).toBe(DEFAULT_IDLE_MINUTES * MIN);
    }
    expect(lines.map((line) => JSON.parse(line).event)).toEqual(Array(5).fill("session_idle_invalid"));
  });
});
