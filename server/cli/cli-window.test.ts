// The operator CLI and the maintenance window, through the real bin: status
// shows the window and its next start; a run, or an enable that starts a
// pass, is refused outside it (exit 3, recorded) unless --outside-window.
// The bin reads the real clock, so the windows are placed hours away from
// the current UTC hour: surely closed, or surely open for the test's length.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { compactionStatusBodySchema } from "@/lib/compaction/api";
import { formatUtc } from "@/lib/time/rfc3339";
import { createTestDb, type TestDb } from "@/server/db/test-db";
import { countMarkedRows, seedOldTask, readRecordSync } from "@/server/compaction/test-support";
import { DAY_MS } from "@/server/jobs/schedule";
import { EXIT } from "./exit-codes";
import { auditTrail } from "./test-support/audit-trail";
import { jsonOf, runCompactionCli } from "./test-support/run-cli";

const errorCode = (result: { stdout: string }) => (jsonOf({ status: null, stdout: result.stdout, stderr: "" }) as { error: { code: string } }).error.code;

const HOUR_MS = 3_600_000;
const hh = (hour: number) => `${String((hour + 24) % 24).padStart(2, "0")}:00`;
/** A whole-hour UTC window from `fromHour` to `toHour` hours after the start of the current hour. */
function utcWindow(fromHour: number, toHour: number) {
  const hourStartMs = Math.floor(Date.now() / HOUR_MS) * HOUR_MS;
  const hour = new Date(hourStartMs).getUTCHours();
  return { text: `${hh(hour + fromHour)}-${hh(hour + toHour)} UTC`, startMs: hourStartMs + fromHour * HOUR_MS, endMs: hourStartMs + toHour * HOUR_MS };
}

describe("compaction CLI with a maintenance window (MAINTENANCE_WINDOW relative to the real clock)", { timeout: 120_000 }, () => {
  let db: TestDb;
  const cli = (args: string[], env?: Record<string, string>) => runCompactionCli(db.file, args, env);

  beforeEach(async () => {
    db = createTestDb("cli-window-");
  });
  afterEach(() => db.close());

  it("closed: status shows the next start; run and enable are refused (exit 3, nothing changed, recorded) unless --outside-window", async () => {
    const closed = utcWindow(6, 8);
    const env = { MAINTENANCE_WINDOW: closed.text };
    seedOldTask(db.sqlite, "t1", 2);
    const [human, json, enable] = await Promise.all([cli(["status"], env), cli(["status", "--json"], env), cli(["enable", "--age", "1w", "--skip-backup", "--json"], env)]);
    const nextStart = formatUtc(closed.startMs);
    expect(human.stdout).toContain(`maintenance window: ${closed.text}, closed; next start ${nextStart.slice(0, 10)} ${closed.text.slice(0, 5)} UTC (${nextStart})`);
    expect(compactionStatusBodySchema.parse(jsonOf(json)).maintenanceWindow).toEqual({
      start: closed.text.slice(0, 5),
      end: closed.text.slice(6, 11),
      timeZone: "UTC",
      open: false,
      nextStartAt: nextStart,
      endsAt: null,
    });
    expect(enable.status).toBe(EXIT.refused);
    expect(errorCode(enable)).toBe("outside_maintenance_window");
    expect(readRecordSync(db.sqlite).state).toBe("missing");

    const confirmed = await cli(["enable", "--age", "1w", "--skip-backup", "--outside-window", "--json"], env);
    expect(confirmed.status).toBe(EXIT.done);
    expect(compactionStatusBodySchema.parse(jsonOf(confirmed))).toMatchObject({ armed: true, latestRun: { kind: "cleanup", state: "succeeded", changedMessages: 2 } });
    expect(countMarkedRows(db.sqlite)).toBe(2);

    seedOldTask(db.sqlite, "t2", 2);
    const run = await cli(["run", "--json"], env);
    expect(run.status).toBe(EXIT.refused);
    expect(errorCode(run)).toBe("outside_maintenance_window");
    expect(countMarkedRows(db.sqlite)).toBe(2);
    const runAnyway = await cli(["run", "--outside-window", "--json"], env);
    expect(runAnyway.status).toBe(EXIT.done);
    expect(compactionStatusBodySchema.parse(jsonOf(runAnyway)).latestRun).toMatchObject({ state: "succeeded", changedMessages: 2 });
    expect(countMarkedRows(db.sqlite)).toBe(4);

    expect(await auditTrail(db.sqlite)).toEqual([
      ["compaction.run", "cli", "ok", null],
      ["compaction.run", "cli", "failed", "outside_maintenance_window"],
      ["policy.changed", "cli", "ok", null],
      ["preparation.chosen", "cli", "ok", null],
      ["policy.changed", "cli", "failed", "outside_maintenance_window"],
    ]);
  });

  it("open: status shows when it ends; enable runs its first pass without --outside-window (exit 0)", async () => {
    const open = utcWindow(-1, 2);
    const env = { MAINTENANCE_WINDOW: open.text };
    seedOldTask(db.sqlite, "t1", 2);
    const enable = await cli(["enable", "--age", "1w", "--skip-backup", "--json"], env);
    expect(enable.status).toBe(EXIT.done);
    const body = compactionStatusBodySchema.parse(jsonOf(enable));
    expect(body.latestRun).toMatchObject({ state: "succeeded", changedMessages: 2 });
    expect(body.maintenanceWindow).toEqual({
      start: open.text.slice(0, 5),
      end: open.text.slice(6, 11),
      timeZone: "UTC",
      open: true,
      nextStartAt: formatUtc(open.startMs + DAY_MS),
      endsAt: formatUtc(open.endMs),
    });
    const human = await cli(["status"], env);
    expect(human.stdout).toContain(`maintenance window: ${open.text}, open until ${formatUtc(open.endMs).slice(0, 10)} ${open.text.slice(6, 11)} UTC`);
  });
});
