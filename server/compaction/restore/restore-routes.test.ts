// Per-task payload restore, black-box over the real routes on every engine
// (issue 29): import a workspace, enable compaction with a backup, compact,
// then bring one task back from that backup. Its export is byte-identical to
// the export before compaction, a message edited after compaction is
// reported changed_since_compaction and left as it is, the next pass leaves
// the held task untouched, the other tasks stay compacted; viewers get 403,
// cross-origin requests are refused, and nothing of a payload reaches logs,
// events, status or the audit trail.
import fs from "node:fs";
import path from "node:path";
import { Writable } from "node:stream";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { GET as getPolicy, PUT as putPolicy } from "@/app/api/v1/system/database/tool-payload-retention/route";
import { POST as run } from "@/app/api/v1/system/database/tool-payload-retention/run/route";
import { GET as shellOutput } from "@/app/api/v1/messages/[id]/shell-output/route";
import { GET as exportGet } from "@/app/api/v1/tasks/[id]/export/route";
import { GET as holdGet } from "@/app/api/v1/tasks/[id]/hold/route";
import { GET as restoreGet, POST as restorePost } from "@/app/api/v1/tasks/[id]/payload-restore/route";
import { GET as auditGet } from "@/app/api/v1/system/audit/route";
import { manualClock } from "@/server/clock";
import { backupsDirFor } from "@/server/db/url";
import { TEST_POSTGRES_URL } from "@/server/db/pg/test-db";
import { AS_ADMIN, AS_VIEWER, apiRequest, setUpEngineRouteTestEnv, type EngineRouteTestEnv, type Who } from "@/server/http/route-test-support";
import { createLogger } from "@/server/log";
import { importFixture } from "@/server/workspace/fixture/import-fixture";
import { replaceMessageMetadata } from "@/server/workspace/message-writes";
import { restoreReportSchema, restoreSummarySchema } from "@/lib/task-compaction/api";
import { shellMetadata } from "../test-support";

const CANARY = "CANARY-29-restore-do-not-leak";
const BASE = "/api/v1/system/database/tool-payload-retention";
const NOW = Date.UTC(2026, 5, 1, 12, 0, 0);
const OLD = "2026-01-02T10:00:00Z";
const withId = (id: string) => ({ params: Promise.resolve({ id }) });

/** A finished task with `count` shell rows (payloads holding the canary) and one row compaction never touches. */
function task(id: string, count: number): string {
  const message = (i: number) => `{ "id": "${id}-m${i}", "turnId": "${id}-u", "authorType": "agent", "type": "tool_execute", "content": "tool",
      "metadata": ${shellMetadata(`${id}-c${i}`, `${CANARY} line ${i} of ${id}\\n`.repeat(40 + i))}, "createdAt": "${OLD}", "updatedAt": "${OLD}" }`;
  const plan = `{ "id": "${id}-plan", "turnId": "${id}-u", "authorType": "agent", "type": "tool_call", "content": "plan",
      "metadata": {"normalized": {"kind": "show_plan", "show_plan": {"steps": ["a", "b"]}}, "n": 1.50}, "createdAt": "${OLD}", "updatedAt": "${OLD}" }`;
  return `{ "id": "${id}", "title": "Task ${CANARY} ${id}", "state": "COMPLETED", "createdAt": "${OLD}", "updatedAt": "${OLD}", "queuedForStep": false,
      "sessions": [ { "id": "${id}-s", "state": "COMPLETED", "startedAt": "${OLD}", "updatedAt": "${OLD}", "completedAt": "${OLD}",
        "turns": [ { "id": "${id}-u", "startedAt": "${OLD}", "completedAt": "${OLD}" } ],
        "messages": [ ${[...Array.from({ length: count }, (_, i) => message(i)), plan].join(", ")} ],
        "queuedMessages": [], "runs": [ { "id": "${id}-r", "state": "SUCCEEDED" } ] } ] }`;
}

const fixture = () => `{ "format": "workspace-fixture", "version": 1, "tasks": [ ${["ta", "tb", "tc", "td"].map((id) => task(id, 3)).join(", ")} ] }`;

for (const { engine, skip } of [
  { engine: "sqlite" as const, skip: false },
  { engine: "postgres" as const, skip: !TEST_POSTGRES_URL },
]) {
  describe.skipIf(skip)(`per-task payload restore [${engine}]`, () => {
    let env: EngineRouteTestEnv;
    let logText: string;
    let events: string[];
    let unsubscribe: () => void;
    const bodies: string[] = [];

    beforeEach(async () => {
      logText = "";
      events = [];
      bodies.length = 0;
      const sink = new Writable({
        write(chunk, _enc, done) {
          logText += chunk.toString();
          done();
        },
      });
      env = await setUpEngineRouteTestEnv(engine, "restore-routes-", { log: createLogger({ level: "trace", destination: sink }), clock: manualClock(NOW) });
      unsubscribe = env.rt.bus.subscribe((event) => events.push(JSON.stringify(event)));
      await importFixture(env.rt.stores.workspace, { file: "restore.json", text: fixture() });
    });
    afterEach(async () => {
      unsubscribe();
      await env.dispose();
    });

    const keep = async (response: Response) => {
      bodies.push(await response.clone().text());
      return response;
    };
    const exported = async (id: string) => (await exportGet(apiRequest("GET", `/api/v1/tasks/${id}/export`, AS_VIEWER), withId(id))).text();
    const restore = async (id: string, body: unknown, who: Who = AS_ADMIN, headers: Record<string, string> = {}) =>
      keep(await restorePost(apiRequest("POST", `/api/v1/tasks/${id}/payload-restore`, who, body, headers), withId(id)));
    const summary = async (id: string, who: Who = AS_VIEWER) => restoreSummarySchema.parse(await (await keep(await restoreGet(apiRequest("GET", `/api/v1/tasks/${id}/payload-restore`, who), withId(id)))).json());
    const markers = (id: string) =>
      env.sql.all<{ id: string; marked: number | boolean }>(
        `select m.id, m.metadata like '%"payload_retention"%' as marked from messages m join task_sessions s on s.id = m.session_id where s.task_id = ? and m.type = 'tool_execute' order by m.rowid`,
        [id],
      );
    const compactedCount = async (id: string) => (await markers(id)).filter((row) => Boolean(Number(row.marked))).length;
    /** Enables compaction with a preparation backup and runs the first pass; returns the backup's name. */
    async function compactAll(): Promise<string> {
      await keep(await putPolicy(apiRequest("PUT", BASE, AS_ADMIN, { policy: { enabled: true, age: { value: 1, unit: "weeks" } }, expectedRevision: 0, preparation: "backup" })));
      await env.rt.compaction.idle();
      // Preparation starts the first pass itself.
      await env.rt.compaction.idle();
      for (const id of ["ta", "tb", "tc", "td"]) expect(await compactedCount(id), id).toBe(3);
      const listed = await summary("ta");
      expect(listed.backups).toHaveLength(1);
      return listed.backups[0]!.name;
    }
    async function runPass() {
      const { policy } = (await (await keep(await getPolicy(apiRequest("GET", BASE, AS_VIEWER)))).json()) as { policy: { revision: number } };
      const started = await keep(await run(apiRequest("POST", `${BASE}/run`, AS_ADMIN, { expectedRevision: policy.revision })));
      expect(started.status).toBe(202);
      await env.rt.compaction.idle();
    }
    async function finished(operationId: string) {
      await env.rt.payloadRestores.running.get(operationId)?.done;
    }

    it("restores one task byte-identical to its export before compaction; an edited message is left as is; the held task survives the next pass", async () => {
      const before = { ta: await exported("ta"), tb: await exported("tb"), td: await exported("td") };
      const backup = await compactAll();
      const gone = await shellOutput(apiRequest("GET", "/api/v1/messages/ta-m0/shell-output", AS_VIEWER), withId("ta-m0"));
      expect(gone.status).toBe(410);
      // Read to the end: the answer's connection closes before the runtime stops.
      expect((await gone.json()).error.code).toBe("tool_payload_removed");

      // Members see what was removed and which backup can bring it back.
      const viewed = await summary("ta");
      expect(viewed.compacted).toMatchObject({ messages: 3, firstRemovedAt: new Date(NOW).toISOString() });
      expect(viewed.compacted.removedBytes).toBeGreaterThan(3 * 40 * CANARY.length);
      expect(viewed.backups).toEqual([expect.objectContaining({ name: backup, coversAll: true, preparation: true })]);
      expect(viewed.latest).toBeNull();

      // tb: one message edited after compaction (through the guarded writer: its marker stays).
      const edited = (await env.sql.all<{ metadata: string }>("select metadata from messages where id = 'tb-m1'"))[0]!.metadata;
      await replaceMessageMetadata(env.rt.stores.workspace, { messageId: "tb-m1", metadata: edited.replace('"status":"complete"', '"status":"reviewed"'), updatedAt: "2026-06-01T12:30:00Z" });
      const editedNow = (await env.sql.all<{ metadata: string }>("select metadata from messages where id = 'tb-m1'"))[0]!.metadata;
      expect(editedNow).toContain('"status":"reviewed"');

      // The dry run reports per message and changes nothing.
      const dry = await restore("tb", { dryRun: true });
      expect(dry.status).toBe(200);
      const report = restoreReportSchema.parse(await dry.json());
      expect(report.backup).toMatchObject({ name: backup, preparation: true });
      expect(report.backup.sha256).toMatch(/^[0-9a-f]{64}$/);
      expect(report.counts).toEqual({ restorable: 2, not_in_backup: 0, changed_since_compaction: 1, not_compacted: 1 });
      expect(report.messages.map((m) => [m.id, m.status])).toEqual([
        ["tb-m0", "restorable"],
        ["tb-m1", "changed_since_compaction"],
        ["tb-m2", "restorable"],
        ["tb-plan", "not_compacted"],
      ]);
      expect(report.restorableBytes).toBe(report.messages.reduce((sum, m) => sum + m.bytes, 0));
      expect(report.hold).toBe(true);
      expect(await compactedCount("tb")).toBe(3);

      // ta: restore (default: from the newest covering backup, and on hold).
      const started = await restore("ta", {});
      expect(started.status).toBe(202);
      const { operationId } = (await started.json()) as { operationId: string };
      await finished(operationId);
      expect(await compactedCount("ta")).toBe(0);
      const afterTa = await exported("ta");
      expect(afterTa).not.toBe(before.ta);
      // The only difference is the hold the restore set.
      expect(afterTa.replace(/\n {6}"hold": \{\n[^}]*\},/, "")).toBe(before.ta);
      expect(await (await holdGet(apiRequest("GET", "/api/v1/tasks/ta/hold", AS_VIEWER), withId("ta"))).json()).toMatchObject({ held: true, heldBy: "u-admin", restoreId: operationId });
      const ok = await shellOutput(apiRequest("GET", "/api/v1/messages/ta-m0/shell-output", AS_VIEWER), withId("ta-m0"));
      expect(ok.status).toBe(200);
      expect(await ok.text()).toContain(`${CANARY} line 0 of ta`);
      const latest = (await summary("ta")).latest;
      expect(latest).toMatchObject({ id: operationId, state: "succeeded", restoredMessages: 3, backupName: backup, hold: true, skipped: { not_compacted: 1 } });
      expect(events.some((e) => e.includes('"messages_changed"') && e.includes("ta-m0") && e.includes(operationId))).toBe(true);
      expect(events.some((e) => e.includes('"payload_restore"') && e.includes('"succeeded"'))).toBe(true);

      // tb: the edited message stays exactly as edited.
      const tb = await restore("tb", {});
      await finished(((await tb.json()) as { operationId: string }).operationId);
      expect((await env.sql.all<{ metadata: string }>("select metadata from messages where id = 'tb-m1'"))[0]!.metadata).toBe(editedNow);
      expect((await markers("tb")).map((row) => Boolean(Number(row.marked)))).toEqual([false, true, false]);

      // td: restored without a hold gives exactly the export before compaction.
      const td = await restore("td", { hold: false });
      await finished(((await td.json()) as { operationId: string }).operationId);
      expect(await exported("td")).toBe(before.td);

      // The next pass: the held task stays restored, td (not held) is compacted again, tc stayed compacted throughout.
      await env.sql.run("delete from task_holds where task_id = 'tb'");
      await runPass();
      // Counted apart: the held task under skipped.held.
      const status = (await (await keep(await getPolicy(apiRequest("GET", BASE, AS_VIEWER)))).json()) as { latestRun: { state: string; skipped: Record<string, number> } };
      expect(status.latestRun).toMatchObject({ state: "succeeded", skipped: { held: 1 } });
      expect(await exported("ta")).toBe(afterTa);
      expect(await compactedCount("ta")).toBe(0);
      expect(await compactedCount("tc")).toBe(3);
      expect(await compactedCount("td")).toBe(3);
      // tb's edit is recent activity: the task is not old enough to compact now.
      expect(await compactedCount("tb")).toBe(1);

      // The audit trail: who restored what from which backup, counts and ids only.
      const entries = ((await (await auditGet(apiRequest("GET", "/api/v1/system/audit", AS_ADMIN))).json()) as { entries: Array<{ kind: string; actor: string; detail: Record<string, unknown> }> }).entries;
      const restoredA = entries.find((e) => e.kind === "task.payloads_restored" && e.detail.taskId === "ta")!;
      expect(restoredA).toMatchObject({ actor: "u-admin", detail: { operationId, backupName: backup, restoredMessages: 3, messageIds: ["ta-m0", "ta-m1", "ta-m2"], hold: true } });
      expect(entries.filter((e) => e.kind === "task.hold_set").map((e) => e.detail.taskId).sort()).toEqual(["ta", "tb"]);

      // Nothing of a payload or a title in what left the server.
      for (const text of [...bodies, ...events, logText, JSON.stringify(entries)]) expect(text).not.toContain(CANARY);
    });

    it("viewers get 403 on restore and dry run, anonymous 401, cross-origin 403, bad bodies 400; nothing changes", async () => {
      await compactAll();
      for (const body of [{}, { dryRun: true }]) {
        const denied = await restore("ta", body, AS_VIEWER);
        expect(denied.status).toBe(403);
        expect((await restore("ta", body, null)).status).toBe(401);
      }
      const cross = await restore("ta", {}, AS_ADMIN, { origin: "https://evil.example" });
      expect(cross.status).toBe(403);
      expect((await cross.json()).error.code).toBe("cross_origin");
      for (const body of [{ backup: "../workspace.db" }, { dryRun: "yes" }, { hold: 1 }, { extra: true }, "nope"]) {
        const bad = await restore("ta", body);
        expect(bad.status, JSON.stringify(body)).toBe(400);
        expect((await bad.json()).error.code).toBe("invalid_request");
      }
      const unknown = await restore("ta", { backup: "workspace-2020-01-01T00-00-00Z-00000000.db" });
      expect(unknown.status).toBe(404);
      expect((await restore("nope", {})).status).toBe(404);
      expect(await compactedCount("ta")).toBe(3);
      expect(await env.sql.all("select * from task_holds")).toEqual([]);
      expect(await env.sql.all("select * from payload_restores")).toEqual([]);
    });

    it("[TPR-PREP-05] the list says what earlier checks found of each backup without hashing it, and leaves out failed backups and those without the task's ids", async () => {
      const prepared = await compactAll();
      const dir = backupsDirFor(env.rt.dbFile);
      const copy = "workspace-2026-05-01T00-00-00Z-0000c0f1.db";
      const garbage = "workspace-2026-04-01T00-00-00Z-0000bad1.db";
      fs.copyFileSync(path.join(dir, prepared), path.join(dir, copy));
      fs.writeFileSync(path.join(dir, garbage), Buffer.alloc(8192, 0x5a));
      const listed = await summary("ta");
      // The preparation's backup carries its recorded verification; the others were never checked, and
      // listing did not check them (the garbage file is not reported failed before a dry run reads it).
      expect(listed.backups.map((b) => [b.name, b.verification, b.preparation])).toEqual([
        [prepared, "verified", true],
        [copy, "unverified", false],
        [garbage, "unverified", false],
      ]);
      // SQLite looks the task's compacted ids up in the backup; a pg_dump archive is not streamed for a list.
      expect(listed.backups.map((b) => b.heldMessages)).toEqual(engine === "sqlite" ? [3, 3, null] : [null, null, null]);
      expect(listed.excluded).toEqual({ failed: 0, withoutMessages: 0 });

      // A dry run's full check is remembered: the copy it passed is verified, the garbage it failed is left out.
      expect((await restore("ta", { dryRun: true, backup: copy })).status).toBe(200);
      const bad = await restore("ta", { dryRun: true, backup: garbage });
      expect(bad.status).toBe(409);
      expect((await bad.json()).error.code).toBe("backup_unusable");
      const checked = await summary("ta");
      expect(checked.backups.map((b) => [b.name, b.verification])).toEqual([
        [prepared, "verified"],
        [copy, "verified"],
      ]);
      expect(checked.excluded).toEqual({ failed: 1, withoutMessages: 0 });

      // The preparation's backup changed size after its verification: failed, and not offered.
      fs.appendFileSync(path.join(dir, prepared), Buffer.alloc(16));
      const changed = await summary("ta");
      expect(changed.backups.map((b) => b.name)).toEqual([copy]);
      expect(changed.excluded.failed).toBe(2);
      // The default choice skips what the list left out.
      const dry = restoreReportSchema.parse(await (await restore("ta", { dryRun: true })).json());
      expect(dry.backup.name).toBe(copy);
      expect(dry.counts.restorable).toBe(3);

      if (engine === "sqlite") {
        // A valid database that holds none of the task's compacted ids cannot restore it.
        const empty = "workspace-2026-03-01T00-00-00Z-0000e0e1.db";
        const db = new Database(path.join(dir, empty));
        db.exec("create table messages (id text primary key, type text, metadata text, updated_at text)");
        db.close();
        const without = await summary("ta");
        expect(without.backups.map((b) => b.name)).toEqual([copy]);
        expect(without.excluded).toEqual({ failed: 2, withoutMessages: 1 });
      }
    });

    it("a task with nothing removed, or no backup from before, answers no_restore_backup (409) and changes nothing", async () => {
      const none = await restore("ta", { dryRun: true });
      expect(none.status).toBe(409);
      expect((await none.json()).error.code).toBe("no_restore_backup");
      expect((await summary("ta")).backups).toEqual([]);
      expect(await env.sql.all("select * from payload_restores")).toEqual([]);
    });
  });
}
