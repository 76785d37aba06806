// Preparation as an operation through the API (issue 12, item 6): while its
// backup runs, GET shows it as the active operation (kind preparation) with
// the copy's progress by bytes, the event stream carries the same, and
// POST /cancel with its id answers 200 and stops it.
import { afterEach, describe, expect, it, vi } from "vitest";
import { GET, PUT } from "@/app/api/v1/system/database/tool-payload-retention/route";
import { POST as cancel } from "@/app/api/v1/system/database/tool-payload-retention/cancel/route";
import { AS_ADMIN, apiRequest, setUpRouteTestEnv, type RouteTestEnv } from "@/server/http/route-test-support";
import type { SystemEvent } from "@/lib/events/api";
import { manualClock } from "@/server/clock";
import type { createBackup } from "@/server/maintenance/backups/create";

const BASE = "/api/v1/system/database/tool-payload-retention";
let env: RouteTestEnv | null = null;
let releaseAll: Array<() => void> = [];
afterEach(async () => {
  for (const release of releaseAll) release();
  releaseAll = [];
  await env?.dispose();
  env = null;
});

/** A backup that reports half of its copy, then waits for `release` (or the abort). */
function gatedBackup(clock: ReturnType<typeof manualClock>) {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  releaseAll.push(release);
  let reported!: () => void;
  const halfway = new Promise<void>((resolve) => (reported = resolve));
  const fn: typeof createBackup = async (options) => {
    options.onProgress?.({ doneBytes: 0, totalBytes: 4096 });
    clock.advance(1000); // the record keeps about one report a second
    options.onProgress?.({ doneBytes: 2048, totalBytes: 4096 });
    reported();
    await gate;
    options.signal?.throwIfAborted();
    return { name: "workspace-2026-01-01T00-00-00Z-0000abcd.db", sizeBytes: 4096, completedAt: "2026-01-01T00:00:00Z", sha256: "0".repeat(64) };
  };
  return { fn, release, halfway };
}

describe("preparation as the active operation", () => {
  it("[TPR-API-05] a running preparation shows its backup progress by bytes in GET and on the stream, and POST /cancel with its id answers 200", async () => {
    const clock = manualClock(Date.parse("2026-03-01T00:00:00Z"));
    const backup = gatedBackup(clock);
    env = await setUpRouteTestEnv("prep-op-", { clock, worker: { createBackupFn: backup.fn } });
    const events: SystemEvent[] = [];
    env.rt.bus.subscribe((event) => events.push(event));
    const saved = await PUT(
      apiRequest("PUT", BASE, AS_ADMIN, { policy: { enabled: true, age: { value: 3, unit: "months" } }, expectedRevision: 0, preparation: "backup" }),
    );
    expect(saved.status).toBe(200);
    await backup.halfway;

    // The record's copy of the progress is saved behind the report (a writer transaction): GET shows it once saved.
    const status = await vi.waitFor(async () => {
      const read = await (await GET(apiRequest("GET", BASE, AS_ADMIN))).json();
      expect(read.activeOperation).toMatchObject({ kind: "preparation", state: "running", backupBytes: { doneBytes: 2048, totalBytes: 4096 } });
      return read;
    });
    const id: string = status.activeOperation.id;
    expect(events).toContainEqual(
      expect.objectContaining({
        type: "operation",
        operationId: id,
        kind: "preparation",
        state: "running",
        progress: expect.objectContaining({ fraction: 0.5, backupBytes: { doneBytes: 2048, totalBytes: 4096 } }),
      }),
    );

    const res = await cancel(apiRequest("POST", `${BASE}/cancel`, AS_ADMIN, { operationId: id }));
    expect(res.status).toBe(200);
    backup.release();
    await env.rt.compaction.idle();
    const after = await (await GET(apiRequest("GET", BASE, AS_ADMIN))).json();
    expect(after.activeOperation).toBeNull();
    expect(after.preparation).toMatchObject({ state: "failed", errorCode: "preparation_cancelled" });
    expect(events).toContainEqual(expect.objectContaining({ operationId: id, kind: "preparation", state: "cancelled" }));
    // A second cancel names nothing active any more: 409.
    expect((await cancel(apiRequest("POST", `${BASE}/cancel`, AS_ADMIN, { operationId: id }))).status).toBe(409);
  });

  it("[TPR-API-05] a preparation queued behind an analysis is cancellable by its id", async () => {
    const clock = manualClock(Date.parse("2026-03-01T00:00:00Z"));
    const backup = gatedBackup(clock);
    env = await setUpRouteTestEnv("prep-queued-", { clock, worker: { createBackupFn: backup.fn } });
    // An analysis holds the worker; the preparation waits in the queue (pending).
    await env.rt.compaction.requestAnalysis({ value: 1, unit: "weeks" });
    await PUT(apiRequest("PUT", BASE, AS_ADMIN, { policy: { enabled: true, age: { value: 3, unit: "months" } }, expectedRevision: 0, preparation: "backup" }));
    const status = await (await GET(apiRequest("GET", BASE, AS_ADMIN))).json();
    const prepId: string = status.preparation.operationId ?? "";
    expect(prepId).not.toBe("");
    const res = await cancel(apiRequest("POST", `${BASE}/cancel`, AS_ADMIN, { operationId: prepId }));
    expect(res.status).toBe(200);
    backup.release();
    await env.rt.compaction.idle();
    expect((await (await GET(apiRequest("GET", BASE, AS_ADMIN))).json()).preparation).toMatchObject({ state: "failed", errorCode: "preparation_cancelled" });
  });

  it("the real backup reports its copy by bytes, ending with done = total = the published size", async () => {
    env = await setUpRouteTestEnv("prep-real-");
    const events: SystemEvent[] = [];
    env.rt.bus.subscribe((event) => events.push(event));
    await PUT(apiRequest("PUT", BASE, AS_ADMIN, { policy: { enabled: true, age: { value: 3, unit: "months" } }, expectedRevision: 0, preparation: "backup" }));
    await env.rt.compaction.idle();
    const status = await (await GET(apiRequest("GET", BASE, AS_ADMIN))).json();
    expect(status.preparation.state).toBe("ready");
    const reports = events.flatMap((e) => (e.type === "operation" && e.kind === "preparation" && e.progress.backupBytes ? [e.progress.backupBytes] : []));
    expect(reports[0]).toMatchObject({ doneBytes: 0, totalBytes: expect.any(Number) });
    expect(reports.at(-1)).toEqual({ doneBytes: status.preparation.receipt.sizeBytes, totalBytes: status.preparation.receipt.sizeBytes });
  });
});
