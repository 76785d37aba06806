import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { compactionStatusBodySchema } from "@/lib/compaction/api";
import { GET, PUT } from "@/app/api/v1/system/database/tool-payload-retention/route";
import { POST as run } from "@/app/api/v1/system/database/tool-payload-retention/run/route";
import { manualClock } from "@/server/clock";
import { AS_ADMIN, apiRequest, setUpRouteTestEnv, type RouteTestEnv } from "@/server/http/route-test-support";

const BASE = "/api/v1/system/database/tool-payload-retention";
// 12:00 in Lisbon (WEST): outside 01:00-05:00; 02:00 WEST is inside.
const NOON_MS = Date.parse("2026-07-01T11:00:00Z");
const NIGHT_MS = Date.parse("2026-07-01T01:00:00Z");
let env: RouteTestEnv;

beforeEach(async () => {
  env = await setUpRouteTestEnv("window-routes-", { clock: manualClock(NOON_MS), env: { MAINTENANCE_WINDOW: "01:00-05:00 Europe/Lisbon" } });
});
afterEach(() => env.dispose());

describe("maintenance window through the API", () => {
  it("status shows the window and its next start; a manual run outside it needs the confirmation", async () => {
    const status = compactionStatusBodySchema.parse(await (await GET(apiRequest("GET", BASE, AS_ADMIN))).json());
    expect(status.maintenanceWindow).toEqual({
      start: "01:00",
      end: "05:00",
      timeZone: "Europe/Lisbon",
      open: false,
      nextStartAt: "2026-07-02T00:00:00.000Z",
      endsAt: null,
    });
    const enable = { policy: { enabled: true, age: { value: 3, unit: "months" } }, expectedRevision: 0, preparation: "skip" };
    // Enabled inside the window: the initial pass runs at once.
    const clock = env.rt.clock as ReturnType<typeof manualClock>;
    clock.set(NIGHT_MS);
    expect((await PUT(apiRequest("PUT", BASE, AS_ADMIN, enable))).status).toBe(200);
    await env.rt.compaction.idle();
    expect(compactionStatusBodySchema.parse(await (await GET(apiRequest("GET", BASE, AS_ADMIN))).json()).latestRun).toMatchObject({ state: "succeeded" });
    clock.set(NOON_MS);
    const refused = await run(apiRequest("POST", `${BASE}/run`, AS_ADMIN, { expectedRevision: 1 }));
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("outside_maintenance_window");
    const confirmed = await run(apiRequest("POST", `${BASE}/run`, AS_ADMIN, { expectedRevision: 1, outsideWindow: true }));
    expect(confirmed.status).toBe(202);
    await env.rt.compaction.idle();
    // The confirmed run ran to its end outside the window.
    const after = compactionStatusBodySchema.parse(await (await GET(apiRequest("GET", BASE, AS_ADMIN))).json());
    expect(after.activeOperation).toBeNull();
    expect(after.latestRun).toMatchObject({ kind: "cleanup", state: "succeeded" });
    const audit = env.rt.handle.sqlite.prepare("select result, error_code as code from audit_events where kind = 'compaction.run' order by seq").all();
    expect(audit).toEqual([
      { result: "failed", code: "outside_maintenance_window" },
      { result: "ok", code: null },
    ]);
  });

  it("without MAINTENANCE_WINDOW status says none and runs need no confirmation", async () => {
    await env.dispose();
    env = await setUpRouteTestEnv("window-routes-", { clock: manualClock(NOON_MS) });
    const status = compactionStatusBodySchema.parse(await (await GET(apiRequest("GET", BASE, AS_ADMIN))).json());
    expect(status.maintenanceWindow).toBeNull();
  });
});
