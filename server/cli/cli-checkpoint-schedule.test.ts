// `compaction checkpoints schedule` and `compaction checkpoints expiry ...`
// through the real bin on a temp database holding one thread: the verbs the
// routes call, their exit codes (refused 3 for a missing backup choice or a
// closed window, conflict 4 for nothing to cancel), the pass run in the
// command's process, and every change audited as `cli`. The bin reads the
// real clock, so the thread is recent and kept, and the window is placed
// hours away from the current UTC hour (surely closed).
import fs from "node:fs";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { cleanupScheduleStatusSchema, expiryStatusSchema } from "@/lib/checkpoints/maintenance-api";
import { createTestRuntime } from "@/server/runtime-test-support";
import { writeThread } from "@/server/checkpoints/schedule/schedule-test-support";
import { EXIT } from "./exit-codes";
import { auditTrail } from "./test-support/audit-trail";
import { jsonOf, runCompactionCli, type CliResult } from "./test-support/run-cli";

const HOUR_MS = 3_600_000;
const hh = (hour: number) => `${String((hour + 24) % 24).padStart(2, "0")}:00`;
/** A whole-hour UTC window six to eight hours from now: closed for the test's length. */
function closedWindow(): string {
  const hour = new Date(Math.floor(Date.now() / HOUR_MS) * HOUR_MS).getUTCHours();
  return `${hh(hour + 6)}-${hh(hour + 8)} UTC`;
}
const errorCode = (result: CliResult) => (jsonOf(result) as { error: { code: string } }).error.code;

// Each command is a process start (tsx + the server graph): generous timeouts for a loaded machine.
describe("compaction checkpoints schedule|expiry (the real bin)", { timeout: 240_000 }, () => {
  let dir: string;
  let file: string;
  const cli = (args: string[], env?: Record<string, string>) => runCompactionCli(file, ["checkpoints", ...args], env);
  const audit = async () => {
    const sqlite = new Database(file, { readonly: true });
    try {
      return await auditTrail(sqlite);
    } finally {
      sqlite.close();
    }
  };

  beforeEach(async () => {
    const rt = createTestRuntime({ prefix: "cli-schedule-" });
    await writeThread(rt, 2);
    dir = rt.dir;
    file = rt.dbFile!;
    await rt.stop();
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("schedule shows the daily cleanup and turns it on and off, audited", async () => {
    const shown = await cli(["schedule"]);
    expect(shown.status, shown.stderr).toBe(EXIT.done);
    expect(shown.stdout).toContain("automatic checkpoint cleanup: off (revision 0)");
    const on = await cli(["schedule", "--on", "--json"]);
    expect(on.status, on.stderr).toBe(EXIT.done);
    const savedAt = Date.now();
    const onBody = cleanupScheduleStatusSchema.parse(jsonOf(on));
    expect(onBody.policy).toEqual({ enabled: true, revision: 1 });
    // The CLI never arms the daily timer: it states when the server's schedule (which re-reads the record every minute) starts the first run.
    expect(Date.parse(onBody.nextDueAt!)).toBeGreaterThan(savedAt - 120_000);
    expect(Date.parse(onBody.nextDueAt!)).toBeLessThanOrEqual(savedAt + 60_000);
    const off = await cli(["schedule", "--off"]);
    expect(off.stdout).toContain("automatic checkpoint cleanup: off (revision 2)");
    expect(off.stdout).toContain("next run: none");
    expect(await audit()).toEqual([
      ["checkpoints.schedule_changed", "cli", "ok", null],
      ["checkpoints.schedule_changed", "cli", "ok", null],
    ]);
  });

  it("expiry: enable needs a backup choice (3) and the window (3) unless --outside-window; the pass runs here and keeps the recent thread; a shorter period asks again; disable; nothing to cancel (4)", async () => {
    const window = { MAINTENANCE_WINDOW: closedWindow() };
    const noChoice = await cli(["expiry", "enable", "--age", "30d", "--json"], window);
    expect(noChoice.status).toBe(EXIT.refused);
    expect(errorCode(noChoice)).toBe("backup_choice_required");
    const closed = await cli(["expiry", "enable", "--age", "30d", "--skip-backup", "--json"], window);
    expect(closed.status).toBe(EXIT.refused);
    expect(errorCode(closed)).toBe("outside_maintenance_window");
    expect(expiryStatusSchema.parse(jsonOf(await cli(["expiry", "status", "--json"])))).toMatchObject({ policy: { enabled: false, revision: 0 }, armed: false });

    const enabled = await cli(["expiry", "enable", "--age", "30d", "--skip-backup", "--outside-window", "--json"], window);
    expect(enabled.status, enabled.stderr).toBe(EXIT.done);
    expect(expiryStatusSchema.parse(jsonOf(enabled))).toMatchObject({
      policy: { enabled: true, age: { value: 30, unit: "days" }, revision: 1 },
      armed: true,
      preparation: { state: "ready", choice: "skip" },
      latestRun: { kind: "thread_expiry", trigger: "manual", state: "succeeded", threadsScanned: 1, threads: 0, skipped: { recent_activity: 1 } },
      expiredThreads: 0,
    });

    const [analysis, status, run] = await Promise.all([cli(["expiry", "analyze", "--age", "1d", "--json"]), cli(["expiry", "status"], window), cli(["expiry", "run", "--json"], window)]);
    expect(analysis.status, analysis.stderr).toBe(EXIT.done);
    expect(expiryStatusSchema.parse(jsonOf(analysis)).latestAnalysis).toMatchObject({ kind: "expiry_analysis", state: "succeeded", age: { value: 1, unit: "days" }, threads: 0, threadsScanned: 1 });
    expect(status.stdout).toContain("thread expiry: on, threads idle longer than 30d (revision 1)");
    expect(status.stdout).toContain("armed: yes");
    expect(status.stdout).toMatch(/maintenance window: \d\d:00-\d\d:00 UTC, closed/);
    expect(run.status).toBe(EXIT.refused);
    expect(errorCode(run)).toBe("outside_maintenance_window");

    const shorter = await cli(["expiry", "enable", "--age", "7d", "--json"]);
    expect(shorter.status).toBe(EXIT.refused);
    expect(errorCode(shorter)).toBe("backup_choice_required");
    const disabled = await cli(["expiry", "disable", "--json"]);
    expect(disabled.status, disabled.stderr).toBe(EXIT.done);
    expect(expiryStatusSchema.parse(jsonOf(disabled))).toMatchObject({ policy: { enabled: false, revision: 2 }, armed: false, nextDueAt: null });
    const [cancel, notArmed] = await Promise.all([cli(["expiry", "cancel", "--json"]), cli(["expiry", "run", "--outside-window", "--json"])]);
    expect(cancel.status).toBe(EXIT.conflict);
    expect(errorCode(cancel)).toBe("conflict");
    expect(notArmed.status).toBe(EXIT.refused);
    expect(errorCode(notArmed)).toBe("cleanup_not_approved");

    const trail = await audit();
    expect(trail.filter(([kind]) => kind.startsWith("threads.expiry_changed"))).toEqual([
      ["threads.expiry_changed", "cli", "ok", null],
      ["threads.expiry_changed", "cli", "failed", "backup_choice_required"],
      ["threads.expiry_changed", "cli", "ok", null],
      ["threads.expiry_changed", "cli", "failed", "outside_maintenance_window"],
      ["threads.expiry_changed", "cli", "failed", "backup_choice_required"],
    ]);
    expect(trail).toContainEqual(["threads.expired", "system", "ok", null]);
    expect(trail).toContainEqual(["threads.expiry_run", "cli", "failed", "outside_maintenance_window"]);
  });
});
