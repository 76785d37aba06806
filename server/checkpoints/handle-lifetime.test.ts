// The acceptance scenario of run handles: a client keeps run 1's handle on a
// thread that is then regenerated, branched and cleaned up ten times over
// (admission cleanup at every run, the admin pass after every round). It
// still resumes; once its time to live has passed a resume answers
// checkpoint_handle_expired (410), in full mode after retention reclaimed it,
// in delta mode (where it stays an ancestor of the head) while it is still
// stored. Both savers, both modes; the clock is the run deps' test clock.
import { afterEach, describe, expect, it } from "vitest";
import { ERROR_STATUS } from "@/lib/api/error-codes";
import { describeEachEngine } from "@/server/engines-test-support";
import { admissionHook } from "./cleanup/admission-cleanup";
import { MODES, openEngineHarness, replies, messageIds, type Harness } from "./cleanup/contract-support";
import { maintainThread } from "./cleanup/maintenance";
import { createRunHistoryCache } from "./cleanup/run-history";
import { loadThreadGraph } from "./cleanup/thread-graph";
import { isDurationOnly } from "./durations";
import { DAY_MS, DEFAULT_HANDLE_TTL_DAYS } from "./handles";
import { handlePolicy, startRun, type RunRequest } from "./runs";
import { advanceClock } from "./test-support";
import { branch, createThread, regenerate } from "./threads";

let h: Harness | null = null;
afterEach(() => {
  h?.close();
  h = null;
});

describeEachEngine("run handle lifetime", ({ db }) => describe.each(MODES)("%s mode", (_name, config) => {
  it("[CRC-01] run 1's handle resumes after ten rounds of regenerate, branch and Clean up; past its time to live it answers checkpoint_handle_expired (410)", { timeout: 120_000 }, async () => {
    h = await openEngineHarness(db(), config);
    const cache = createRunHistoryCache();
    h.deps = { ...h.deps, admit: admissionHook({ store: h.store, cache }) };
    // The admin pass (Clean up) as the maintenance operation runs it.
    const cleanUp = (threadId: string) =>
      maintainThread({ store: h!.store, dryRun: false, graftLinks: true, keepRunHistoryCarrier: true, handles: handlePolicy(h!.deps) }, threadId);
    const { threadId } = await createThread(h.deps);
    const first = await startRun(h.deps, { threadId, content: "question 1" });
    expect(first.status).toBe("success");
    const handle = first.checkpointId!;
    const kept = await messageIds(h, threadId, handle);
    expect(kept).toHaveLength(4);
    const branches: string[] = [];
    for (let round = 1; round <= 10; round += 1) {
      // Regenerate the first answer (in full mode the thread forks below run 1's handle, leaving it on an abandoned branch) ...
      const [firstAnswer] = await replies(h, threadId);
      expect((await regenerate(h.deps, threadId, firstAnswer!)).status).toBe("success");
      // ... go on, branch from the newest answer, and clean up.
      expect((await startRun(h.deps, { threadId, content: `round ${round}` })).status).toBe("success");
      branches.push((await branch(h.deps, threadId, (await replies(h, threadId)).at(-1)!)).threadId);
      const report = await cleanUp(threadId);
      expect(report.skipped).toBeNull();
      advanceClock(h.deps, DAY_MS);
    }
    const graph = await loadThreadGraph(h.store, threadId);
    if (config.mode === "full") {
      // Off the path, childless: only its being a live handle keeps it.
      expect(graph.nodes.has(handle)).toBe(true);
      expect(graph.children.get(handle) ?? []).toEqual([]);
    }
    // It still resumes: the resumed run continues run 1's conversation.
    const resumed = await startRun(h.deps, { threadId, content: "again from run 1", checkpointId: handle });
    expect(resumed.status).toBe("success");
    const now = await messageIds(h, threadId);
    expect(now.slice(0, 4)).toEqual(kept);
    expect(now).toHaveLength(8);
    for (const b of branches) expect((await messageIds(h, b)).length).toBeGreaterThan(0);

    // Regenerate run 1's answer as the resume brought it back, so the handle leaves the conversation again
    // (in full mode its branch; delta never forks, so there it stays an ancestor of the head).
    const [firstAnswer] = await replies(h, threadId);
    expect(firstAnswer).toBe(kept[3]);
    expect((await regenerate(h.deps, threadId, firstAnswer!)).status).toBe("success");
    expect((await messageIds(h, threadId)).some((id) => kept.includes(id))).toBe(false);
    advanceClock(h.deps, DEFAULT_HANDLE_TTL_DAYS * DAY_MS);
    const report = await cleanUp(threadId);
    expect(report.skipped).toBeNull();
    // Full mode: off the path and past its time to live, Clean up reclaimed it; delta keeps it as an ancestor.
    if (config.mode === "full") expect(report.deleted.leafSiblings).toBeGreaterThan(0);
    const refused = await startRun(h.deps, { threadId, content: "too late", checkpointId: handle }).then(
      () => null,
      (error: unknown) => error as { code: string; message: string; extra?: Record<string, unknown> },
    );
    expect(refused).toMatchObject({ code: "checkpoint_handle_expired", message: expect.stringContaining(threadId), extra: { threadId, expiredAt: expect.any(String) } });
    expect(ERROR_STATUS[refused!.code as keyof typeof ERROR_STATUS]).toBe(410);
    // The thread goes on from its head.
    expect((await startRun(h.deps, { threadId, content: "from the head" })).status).toBe("success");
  });

  it("[CRC-01] a failed or cancelled run's handle is a state checkpoint, never a duration leaf, and resumes after the next run's admission cleanup", { timeout: 120_000 }, async () => {
    h = await openEngineHarness(db(), config);
    h.deps = { ...h.deps, admit: admissionHook({ store: h.store, cache: createRunHistoryCache() }) };
    const failAt = (node: string): Pick<RunRequest, "beforeNode"> => ({
      beforeNode: (n) => {
        if (n === node) throw new Error("tool crashed");
      },
    });
    const cancelAt = (node: string, rollbackOnCancel: boolean): Pick<RunRequest, "beforeNode" | "signal" | "rollbackOnCancel"> => {
      const controller = new AbortController();
      return { signal: controller.signal, rollbackOnCancel, beforeNode: (n) => void (n === node && controller.abort()) };
    };
    const abortedBefore = (): Pick<RunRequest, "signal"> => {
      const controller = new AbortController();
      controller.abort();
      return { signal: controller.signal };
    };
    const cases = [
      { name: "failed in its last node", status: "error", request: failAt("reply") },
      { name: "failed in its first node", status: "error", request: failAt("plan") },
      // Its signal aborted before the graph started (LangGraph still writes the input checkpoint first).
      { name: "cancelled before it started", status: "cancelled", request: abortedBefore() },
      { name: "cancelled", status: "cancelled", request: cancelAt("reply", false) },
      { name: "cancelled with rollback", status: "cancelled", request: cancelAt("reply", true) },
    ] as const;
    for (const c of cases) {
      const { threadId } = await createThread(h.deps);
      expect((await startRun(h.deps, { threadId, content: "question 1" })).status).toBe("success");
      const ended = await startRun(h.deps, { threadId, content: `question 2 (${c.name})`, ...c.request });
      expect({ name: c.name, status: ended.status }).toEqual({ name: c.name, status: c.status });
      const handle = ended.checkpointId!;
      const tuple = await h.accessor.rawTuple(threadId, handle);
      expect({ name: c.name, durationOnly: isDurationOnly(tuple!.metadata) }).toEqual({ name: c.name, durationOnly: false });
      const kept = (await h.accessor.getState(threadId, handle))!.values.messages.map((m) => String(m.id));
      // The next run's admission reclaims whatever duration leaf trails the thread, never the handle.
      expect((await startRun(h.deps, { threadId, content: "question 3" })).status).toBe("success");
      expect(await h.accessor.rawTuple(threadId, handle)).toBeDefined();
      const resumed = await startRun(h.deps, { threadId, content: "again", checkpointId: handle });
      expect({ name: c.name, status: resumed.status }).toEqual({ name: c.name, status: "success" });
      expect((await messageIds(h, threadId)).slice(0, kept.length)).toEqual(kept);
    }
  });
}));
