// A throttled sign-in's 429 comes after a pause on the runtime's timers, so a
// client that asks again the moment it is answered asks slowly; the pause is
// bounded in length and in how many answers wait at once.
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { installPeerAddressStamp } from "@/server/http/peer-address";
import { createLogger } from "@/server/log";
import { manualTime, type ManualTime } from "@/server/manual-time-test-support";
import { createTestRuntime, type TestRuntime } from "@/server/runtime-test-support";
import { signInFrom } from "./login-test-support";
import { DEFAULT_REFUSAL_PAUSE_MS, createRefusalPace, refusalPauseFromEnv } from "./refusal-pace";
import { createSqliteAuthStore } from "./sqlite-store";
import { ACCOUNT_FREE_FAILURES } from "./throttle";
import { createUser } from "./users";

const ADMIN = { email: "admin@example.com", password: "admin-password-long" };
const ATTACKER = "203.0.113.66";

let rt: TestRuntime | null = null;
afterEach(async () => {
  await rt?.dispose();
  rt = null;
});
beforeAll(async () => installPeerAddressStamp());

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 10_000 && !condition(); i++) await new Promise((resolve) => setImmediate(resolve));
  expect(condition()).toBe(true);
}

describe("the pace of refused sign-ins", () => {
  it("[#26-1] a throttled sign-in is answered 429 only after SIGN_IN_REFUSAL_PAUSE_MS (1 s by default); a counted guess is not paused", async () => {
    const time: ManualTime = manualTime(Date.parse("2026-03-01T10:00:00Z"));
    rt = createTestRuntime({ prefix: "refusal-pace-", install: true, clock: time.clock, timers: time.timers, env: { SIGN_IN_REFUSAL_PAUSE_MS: "" } });
    await createUser(createSqliteAuthStore(rt.handle), { ...ADMIN, role: "admin", nowMs: time.clock.now() });
    expect(rt.signIn.pace.pauseMs).toBe(DEFAULT_REFUSAL_PAUSE_MS);
    for (let i = 0; i < ACCOUNT_FREE_FAILURES; i++) expect((await signInFrom({ ...ADMIN, password: `wrong-${i}` }, ATTACKER)).status).toBe(401);
    let answer: Response | null = null;
    const refused = signInFrom({ ...ADMIN, password: "wrong-again" }, ATTACKER).then((response) => (answer = response));
    const pace = rt.signIn.pace;
    await until(() => pace.held() === 1);
    time.advance(DEFAULT_REFUSAL_PAUSE_MS - 1);
    await new Promise((resolve) => setImmediate(resolve));
    expect(answer).toBeNull();
    time.advance(1);
    await refused;
    expect(answer!.status).toBe(429);
    expect(Number(answer!.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(pace.held()).toBe(0);
  });

  it("never pauses longer than the wait it announces, and at most 256 answers wait at once (the rest are answered at once)", async () => {
    const time = manualTime(0);
    const pace = createRefusalPace({ timers: time.timers, pauseMs: 1000, maxHeld: 2 });
    const done: string[] = [];
    void pace.pause({ retryAfterMs: 300 }).then(() => done.push("short"));
    void pace.pause({ retryAfterMs: 5000 }).then(() => done.push("long"));
    await pace.pause({ retryAfterMs: 5000 }).then(() => done.push("over the bound"));
    expect(done).toEqual(["over the bound"]);
    expect(time.pendingDelays()).toEqual([300, 1000]);
    time.advance(1000);
    await new Promise((resolve) => setImmediate(resolve));
    expect(done).toEqual(["over the bound", "short", "long"]);
    expect(pace.held()).toBe(0);
  });

  it("reads SIGN_IN_REFUSAL_PAUSE_MS: 0 for none, up to 10 s, anything else the default with a warning", () => {
    const lines: string[] = [];
    const log = createLogger({ level: "warn", destination: { write: (line: string) => void lines.push(line) } });
    expect(refusalPauseFromEnv({}, log)).toBe(1000);
    expect(refusalPauseFromEnv({ SIGN_IN_REFUSAL_PAUSE_MS: "0" }, log)).toBe(0);
    expect(refusalPauseFromEnv({ SIGN_IN_REFUSAL_PAUSE_MS: "2500" }, log)).toBe(2500);
    expect(lines).toHaveLength(0);
    expect(refusalPauseFromEnv({ SIGN_IN_REFUSAL_PAUSE_MS: "20000" }, log)).toBe(1000);
    expect(refusalPauseFromEnv({ SIGN_IN_REFUSAL_PAUSE_MS: "1e3" }, log)).toBe(1000);
    expect(lines.map((line) => JSON.parse(line).event)).toEqual(["refusal_pause_invalid", "refusal_pause_invalid"]);
  });
});
