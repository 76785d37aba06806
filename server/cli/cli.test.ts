// The operator CLI through its real binary (bin/compaction.mjs, a child
// process) on a temp database with the migrations applied. --json answers are
// parsed with the API's own zod schemas.
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { compactionStatusBodySchema } from "@/lib/compaction/api";
import { backupReceiptSchema, backupsResponseSchema, backupVerificationSchema } from "@/lib/database/api";
import { checkpointStorageStatus } from "@/lib/checkpoints/api";
import { auditPage, auditTrail } from "./test-support/audit-trail";
import { createTestDb, type TestDb } from "@/server/db/test-db";
import { acceptCleanup } from "@/server/compaction/policy/commands";
import { updateCompactionRecord } from "@/server/compaction/policy/record";
import { formatUtc } from "@/lib/time/rfc3339";
import { DAY_MS } from "@/server/jobs/schedule";
import { armPolicy, countMarkedRows, seedOldTask, storeOf, readRecordSync } from "@/server/compaction/test-support";
import { jsonOf, runCompactionCli, startLiveServer, type LiveServer } from "./test-support/run-cli";
import { createRuntime, openRuntime } from "@/server/runtime";
import { createLogger } from "@/server/log";
import { EXIT } from "./exit-codes";
import { SLICE_ENDED_CODE } from "./follow";

const errorCode = (result: { stdout: string }) => (jsonOf({ status: null, stdout: result.stdout, stderr: "" }) as { error: { code: string } }).error.code;

// Each command is a process start (tsx + the server graph): generous timeouts
// for a loaded machine, not a speed claim.
describe("compaction CLI (the real bin on a temp database)", { timeout: 120_000 }, () => {
  let db: TestDb;
  const cli = (args: string[], env?: Record<string, string>) => runCompactionCli(db.file, args, env);

  beforeEach(async () => {
    db = createTestDb("cli-");
  });
  afterEach(() => db.close());

  it("status: human lines by default, the API's status body with --json (exit 0)", async () => {
    await armPolicy(db.sqlite, { value: 12, unit: "weeks" }, Date.now());
    const [human, json] = await Promise.all([
      cli(["status"]),
      // The bin from another directory: a relative file: URL is the caller's.
      runCompactionCli(db.file, ["status", "--json"], { DATABASE_URL: "file:workspace.db" }, path.dirname(db.file)),
    ]);
    expect(human.status).toBe(EXIT.done);
    expect(human.stdout).toContain("policy: enabled, older than 12w, revision 1");
    expect(human.stdout).toContain("maintenance guard: free");
    expect(human.stdout).toContain("maintenance window: none");
    expect(json.status).toBe(EXIT.done);
    const body = compactionStatusBodySchema.parse(jsonOf(json));
    expect(body).toMatchObject({ capability: "supported", recordState: "ok", armed: true, activeOperation: null, policy: { age: { value: 12, unit: "weeks" } } });
    expect(body.maintenanceWindow ?? null).toBeNull();
  });

  it("usage mistakes exit 2 and change nothing", async () => {
    const [help, ...results] = await Promise.all([
      cli(["--help"]),
      cli(["frobnicate"]),
      cli(["analyze", "--age", "5x"]),
      cli(["enable", "--age", "3m", "--backup", "--skip-backup"]),
      cli(["backup", "verify", "../workspace.db", "--json"]),
    ]);
    expect(help.status).toBe(EXIT.done);
    expect(help.stdout).toContain("checkpoints");
    expect(results.map((r) => r.status)).toEqual([EXIT.usage, EXIT.usage, EXIT.usage, EXIT.usage]);
    expect(results[1]?.stderr).toContain("3m or 12w");
    expect(errorCode(results[3]!)).toBe("invalid_request");
    expect(readRecordSync(db.sqlite).state).toBe("missing");
  });

  it("[TPR-PREP-01] enable without a backup choice, run before approval and an unsupported engine are refused (exit 3)", async () => {
    const [enable, run, postgres] = await Promise.all([
      cli(["enable", "--age", "1w", "--json"]),
      cli(["run", "--json"]),
      cli(["status", "--json"], { DATABASE_URL: "postgres://localhost:1/none" }),
    ]);
    expect(postgres.status).toBe(EXIT.refused);
    expect(errorCode(postgres)).toBe("unsupported_engine");
    expect(enable.status).toBe(EXIT.refused);
    expect(errorCode(enable)).toBe("backup_choice_required");
    expect(run.status).toBe(EXIT.refused);
    expect(errorCode(run)).toBe("cleanup_not_approved");
    expect(readRecordSync(db.sqlite).state).toBe("missing");
    // Refusals are in the audit trail with their codes, as the command line's.
    expect((await auditTrail(db.sqlite)).sort()).toEqual([
      ["compaction.run", "cli", "failed", "cleanup_not_approved"],
      ["policy.changed", "cli", "failed", "backup_choice_required"],
    ]);
  });

  it("analyze changes nothing; enable --skip-backup arms and runs the first pass; run --until-done and disable (exit 0)", async () => {
    seedOldTask(db.sqlite, "t1", 3);
    seedOldTask(db.sqlite, "t2", 3);

    const analyze = await cli(["analyze", "--age", "1w", "--json"]);
    expect(analyze.status).toBe(EXIT.done);
    expect(compactionStatusBodySchema.parse(jsonOf(analyze)).latestAnalysis).toMatchObject({ kind: "analysis", state: "succeeded", eligibleMessages: 6 });
    expect(countMarkedRows(db.sqlite)).toBe(0);

    const enable = await cli(["enable", "--age", "1w", "--skip-backup", "--json"]);
    expect(enable.status).toBe(EXIT.done);
    const enabled = compactionStatusBodySchema.parse(jsonOf(enable));
    expect(enabled).toMatchObject({ armed: true, policy: { enabled: true, age: { value: 1, unit: "weeks" } }, preparation: { state: "ready", choice: "skip" } });
    expect(enabled.latestRun).toMatchObject({ kind: "cleanup", state: "succeeded", changedMessages: 6 });
    expect(countMarkedRows(db.sqlite)).toBe(6);

    const run = await cli(["run", "--until-done", "--json"]);
    expect(run.status).toBe(EXIT.done);
    expect(compactionStatusBodySchema.parse(jsonOf(run)).latestRun).toMatchObject({ state: "succeeded", changedMessages: 0 });

    const disable = await cli(["disable", "--json"]);
    expect(disable.status).toBe(EXIT.done);
    const disabled = compactionStatusBodySchema.parse(jsonOf(disable));
    expect(disabled.policy.enabled).toBe(false);
    expect(disabled.armed).toBe(false);

    // Every change as the command line's; the analysis changed nothing and is not there.
    expect(await auditTrail(db.sqlite)).toEqual([
      ["policy.changed", "cli", "ok", null],
      ["compaction.run", "cli", "ok", null],
      ["policy.changed", "cli", "ok", null],
      ["preparation.chosen", "cli", "ok", null],
    ]);
  });

  it("cancel: nothing active is a conflict (exit 4); a second runner is refused (exit 4); an operation active in another process is cancelled (exit 0)", async () => {
    const nothing = await cli(["cancel", "--json"]);
    expect(nothing.status).toBe(EXIT.conflict);
    expect(errorCode(nothing)).toBe("conflict");

    // Another process (a server) reserved a pass in the shared record.
    const revision = await armPolicy(db.sqlite, { value: 1, unit: "weeks" }, Date.now());
    const { operationId } = await acceptCleanup({ store: storeOf(db.sqlite), nowMs: Date.now(), newId: () => "server-pass-1" }, { expectedRevision: revision, priority: "manual" });

    const second = await cli(["run", "--json"]);
    expect(second.status).toBe(EXIT.conflict);
    expect(errorCode(second)).toBe("operation_active");

    const cancel = await cli(["cancel", "--json"]);
    expect(cancel.status).toBe(EXIT.done);
    const status = compactionStatusBodySchema.parse(jsonOf(cancel));
    expect(status.activeOperation).toBeNull();
    expect(status.latestRun).toMatchObject({ id: operationId, state: "cancelled" });
    expect(await auditTrail(db.sqlite)).toEqual([
      ["compaction.cancelled", "cli", "ok", null],
      ["compaction.run", "cli", "failed", "operation_active"],
    ]);
  });

  it("[TPR-PREP-03] backup create, list and verify (exit 0); enable --backup pins a receipt that verifies; a damaged backup fails (exit 1)", async () => {
    const create = await cli(["backup", "create", "--json"]);
    expect(create.status).toBe(EXIT.done);
    const receipt = backupReceiptSchema.parse(jsonOf(create));

    const enable = await cli(["enable", "--age", "1w", "--backup", "--json"]);
    expect(enable.status).toBe(EXIT.done);
    const prepared = compactionStatusBodySchema.parse(jsonOf(enable)).preparation;
    expect(prepared).toMatchObject({ state: "ready", choice: "backup" });
    const pinned = prepared.receipt && "name" in prepared.receipt ? prepared.receipt.name : "";

    const [list, verifyManual, verifyPinned] = await Promise.all([
      cli(["backup", "list", "--json"]),
      cli(["backup", "verify", receipt.name, "--json"]),
      cli(["backup", "verify", pinned, "--json"]),
    ]);
    expect(list.status).toBe(EXIT.done);
    expect(backupsResponseSchema.parse(jsonOf(list)).backups.map((b) => b.name).sort()).toEqual([receipt.name, pinned].sort());
    expect(verifyManual.status).toBe(EXIT.done);
    expect(backupVerificationSchema.parse(jsonOf(verifyManual))).toMatchObject({ ok: true, sha256: receipt.sha256, receipt: "none" });
    expect(verifyPinned.status).toBe(EXIT.done);
    expect(backupVerificationSchema.parse(jsonOf(verifyPinned))).toMatchObject({ ok: true, receipt: "matched" });

    const file = path.join(path.dirname(db.file), "backups", receipt.name);
    const fd = fs.openSync(file, "r+");
    fs.writeSync(fd, Buffer.alloc(4096, 0x5a), 0, 4096, 0);
    fs.closeSync(fd);
    const [damaged, missing] = await Promise.all([
      cli(["backup", "verify", receipt.name, "--json"]),
      cli(["backup", "verify", "workspace-2020-01-01T00-00-00Z-00000000.db", "--json"]),
    ]);
    expect(damaged.status).toBe(EXIT.failed);
    expect(backupVerificationSchema.parse(jsonOf(damaged))).toMatchObject({ ok: false, code: "backup_corrupt" });
    expect(missing.status).toBe(EXIT.failed);
    expect(backupVerificationSchema.parse(jsonOf(missing))).toMatchObject({ ok: false, code: "backup_missing" });

    // The manual backup and the enable are recorded as the command line's; verify changes nothing and is not.
    expect(await auditTrail(db.sqlite)).toEqual([
      ["policy.changed", "cli", "ok", null],
      ["preparation.chosen", "cli", "ok", null],
      ["backup.created", "cli", "ok", null],
    ]);
    const created = (await auditPage(db.sqlite, "backup.created")).entries;
    expect(created.map((e) => e.detail)).toEqual([{ backupName: receipt.name }]);
  });

  it("[#26-7] lock show names another host's maintenance lock; lock clear takes its id and host, then a backup runs (exit 0)", { timeout: 240_000 }, async () => {
    fs.writeFileSync(`${db.file}.maintenance.lock`, JSON.stringify({ id: "far-lock", owner: "server", kind: "backup", pid: 1, token: "t", host: "old-container-7f3a", acquiredAt: "2026-11-30T08:00:00Z" }));
    // Four process starts: the refusals while the lock is there are the route tests' (unverifiable-lock.test.ts).
    const [show, wrong] = await Promise.all([cli(["lock", "show"]), cli(["lock", "clear", "--id", "far-lock", "--confirm", "old-container", "--json"])]);
    expect(show.status).toBe(EXIT.done);
    expect(show.stdout).toContain("maintenance is held by lock far-lock of host old-container-7f3a: backup, taken 2026-11-30T08:00:00.000Z");
    expect(show.stdout).toContain("lock clear --id far-lock --confirm old-container-7f3a");
    expect(wrong.status).toBe(EXIT.usage);
    expect(errorCode(wrong)).toBe("invalid_request");
    expect(fs.existsSync(`${db.file}.maintenance.lock`)).toBe(true);
    const cleared = await cli(["lock", "clear", "--id", "far-lock", "--confirm", "old-container-7f3a", "--json"]);
    expect(cleared.status).toBe(EXIT.done);
    expect(jsonOf(cleared)).toEqual({ cleared: "far-lock" });
    expect(fs.existsSync(`${db.file}.maintenance.lock`)).toBe(false);
    const backup = await cli(["backup", "create", "--json"]);
    expect(backup.status).toBe(EXIT.done);
    const entries = (await auditPage(db.sqlite, "maintenance.lock_cleared")).entries;
    expect(entries.map((e) => [e.actor, e.result, e.errorCode, e.detail])).toEqual([
      ["cli", "ok", null, { lockHost: "old-container-7f3a", lockKind: "backup" }],
      ["cli", "failed", "invalid_request", { lockHost: "old-container-7f3a", lockKind: "backup" }],
    ]);
  });

  it("checkpoints analyze and run answer the checkpoint storage status (exit 0)", async () => {
    const analyze = await cli(["checkpoints", "analyze", "--json"]);
    expect(analyze.status).toBe(EXIT.done);
    expect(checkpointStorageStatus.parse(jsonOf(analyze)).lastResult).toMatchObject({ kind: "analysis", state: "succeeded" });
    const run = await cli(["checkpoints", "run"]);
    expect(run.status).toBe(EXIT.done);
    expect(run.stdout).toMatch(/^checkpoint cleanup \S+: succeeded$/m);
    // The cleanup is a change (recorded as the command line's); the analysis is not.
    const entries = (await auditPage(db.sqlite)).entries;
    expect(entries).toMatchObject([{ kind: "checkpoints.cleanup", actor: "cli", result: "ok", detail: { operationId: expect.any(String) } }]);
  });

  describe("beside a live server process on the same file", () => {
    let server: LiveServer | null = null;
    afterEach(async () => {
      await server?.stop();
      server = null;
    });

    it("[TPR-SCH-05] the shared guard keeps them apart: backup refused (exit 4), a pass defers with work left (exit 5); after release both go through", async () => {
      server = await startLiveServer(db.file);
      for (const task of ["a", "b"]) seedOldTask(db.sqlite, task, 3);
      await armPolicy(db.sqlite, { value: 1, unit: "weeks" }, Date.now());
      // The server's own daily pass is due tomorrow: its record watch must
      // not start one while this test runs (manual runs ignore the due time).
      await updateCompactionRecord(storeOf(db.sqlite), {
        nowMs: Date.now(),
        mutate: (record) => ({ ...record, runtime: { ...record.runtime, nextDueAt: formatUtc(Date.now() + DAY_MS) } }),
      });

      // A server runtime in this process sees the other process's lease too.
      const local = openRuntime(createRuntime({ env: { DATABASE_URL: `file:${db.file}` }, log: createLogger({ level: "silent" }) }))!;
      try {
        expect(await local.guard.tryAcquire({ owner: "test", kind: "vacuum" })).toBeNull();
        expect(await local.guard.holder()).toMatchObject({ owner: "live-server-backup", kind: "backup" });
      } finally {
        await local.stop();
      }

      const [backup, status, run] = await Promise.all([cli(["backup", "create", "--json"]), cli(["status"]), cli(["run", "--json"])]);
      expect(backup.status).toBe(EXIT.conflict);
      expect(errorCode(backup)).toBe("maintenance_busy");
      expect(status.stdout).toContain("maintenance guard: backup (live-server-backup)");
      expect(run.status).toBe(EXIT.partial);
      const deferred = compactionStatusBodySchema.parse(jsonOf(run));
      expect(deferred.activeOperation).toBeNull();
      expect(deferred.latestRun).toMatchObject({ state: "cancelled", errorCode: SLICE_ENDED_CODE, changedMessages: 0 });
      expect(countMarkedRows(db.sqlite)).toBe(0);
      const backups = path.join(path.dirname(db.file), "backups");
      expect(fs.existsSync(backups) ? fs.readdirSync(backups).filter((name) => name.endsWith(".db")) : []).toEqual([]);

      await server.release();
      // One after the other: a backup running beside the pass would make it
      // defer (correctly) and wait a minute for its continuation.
      const done = await cli(["run", "--until-done"]);
      const again = await cli(["backup", "create", "--json"]);
      expect(again.status).toBe(EXIT.done);
      backupReceiptSchema.parse(jsonOf(again));
      expect(done.status).toBe(EXIT.done);
      expect(done.stdout).toMatch(/^run \S+: succeeded$/m);
      expect(countMarkedRows(db.sqlite)).toBe(6);
    });
  });
});
