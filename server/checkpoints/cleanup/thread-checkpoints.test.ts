import { afterEach, describe, expect, it } from "vitest";
import { threadCheckpointsResponse, type ThreadCheckpoint, type ThreadCheckpointsResponse } from "@/lib/checkpoints/api";
import { describeEachEngine } from "@/server/engines-test-support";
import { isAppError } from "@/server/errors";
import { buildLeafSibling, buildLinear, MODES, openEngineHarness, type Harness } from "./contract-support";
import { maintainThread } from "./maintenance";
import { loadThreadGraph } from "./thread-graph";
import { readThreadCheckpoints } from "./thread-checkpoints";
import { DAY_MS, DEFAULT_HANDLE_TTL_DAYS } from "../handles";
import { handlePolicy } from "../runs";
import { advanceClock } from "../test-support";

let h: Harness | null = null;
afterEach(() => {
  h?.close();
  h = null;
});

function all(view: ThreadCheckpointsResponse): ThreadCheckpoint[] {
  return view.turns.flatMap((t) => t.checkpoints);
}

function byId(view: ThreadCheckpointsResponse, id: string): ThreadCheckpoint {
  const found = all(view).find((c) => c.checkpointId === id);
  if (!found) throw new Error(`checkpoint ${id} is not in the view`);
  return found;
}

describeEachEngine("thread checkpoints view", ({ db }) => describe.each(MODES)("%s mode", (_name, config) => {
  it("[CRC-03] [CRC-04] [CRC-05] a linear thread: one turn per run, the trailing leaf goes at the next run, earlier duration links are grafted, states on the path stay protected", async () => {
    h = await openEngineHarness(db(), config);
    // The harness runs without the admission hook, so each run's duration leaf stays as a chain link.
    const shape = await buildLinear(h, 3);
    const view = threadCheckpointsResponse.parse(await readThreadCheckpoints({ store: h.store, threadId: shape.threadId }));
    // The thread's empty starting checkpoint opens the first run's turn.
    expect(view.turns.map((t) => t.kind)).toEqual(["run", "run", "run"]);
    expect(view.turns[0]!.checkpoints[0]!.kind).toBe("rewrite");
    expect(view.turns.every((t) => t.current)).toBe(true);
    expect(view.checkpoints).toBe((await loadThreadGraph(h.store, shape.threadId)).nodes.size);
    // Every run: input, loop steps, then its duration leaf.
    for (const turn of view.turns) {
      expect(turn.checkpoints.find((c) => c.kind !== "rewrite")!.kind).toBe("input");
      expect(turn.checkpoints.at(-1)!.kind).toBe("duration");
      expect(turn.checkpoints.filter((c) => c.kind === "step").length).toBeGreaterThanOrEqual(3);
    }
    // Derived from the view, not from run results: which id a run hands out is the run API's business.
    const leaves = all(view).filter((c) => c.kind === "duration");
    expect(leaves).toHaveLength(3);
    expect(leaves.at(-1)).toMatchObject({ position: "head", verdict: { status: "reclaimable", form: "next_run" } });
    for (const link of leaves.slice(0, -1)) expect(link).toMatchObject({ position: "current", verdict: { status: "reclaimable", form: "graft" } });
    const states = all(view).filter((c) => c.kind !== "duration");
    expect(states.every((c) => c.verdict.status === "protected" && c.verdict.reasons.includes("branch_ancestor"))).toBe(true);
    // A step with pending writes says so too.
    expect(states.some((c) => c.verdict.status === "protected" && c.verdict.reasons.includes("pending_writes"))).toBe(true);
    // "Reclaimable" is what Clean up removes (the two grafted links); the head's leaf is the next run's.
    const byCleanup = all(view).filter((c) => c.verdict.status === "reclaimable" && c.verdict.form !== "next_run");
    expect(view.reclaimableCheckpoints).toBe(2);
    expect(view.reclaimableBytes).toBe(byCleanup.reduce((n, c) => n + c.bytes + c.writesBytes, 0));
    expect(view.nextRunCheckpoints).toBe(1);
    expect(view.nextRunBytes).toBe(leaves.at(-1)!.bytes + leaves.at(-1)!.writesBytes);
    expect(view.turns.reduce((n, t) => n + t.reclaimableBytes, 0)).toBe(view.reclaimableBytes);
  });

  it("[CRC-01] a pinned resume target is protected with its reason", async () => {
    h = await openEngineHarness(db(), config);
    const shape = await buildLinear(h, 2);
    const firstLeaf = all(await readThreadCheckpoints({ store: h.store, threadId: shape.threadId })).find((c) => c.kind === "duration")!;
    const pinned = firstLeaf.checkpointId;
    const view = await readThreadCheckpoints({ store: h.store, threadId: shape.threadId, pins: new Set([pinned]) });
    const verdict = byId(view, pinned).verdict;
    expect(verdict.status === "protected" ? verdict.reasons : []).toEqual(expect.arrayContaining(["explicit_resume_target", "duration_chain_link"]));
  });

  it("[CRC-06] a regenerated answer leaves an abandoned branch whose tip is reclaimable, and a real cleanup removes exactly what the view called reclaimable", async () => {
    h = await openEngineHarness(db(), config);
    const shape = await buildLeafSibling(h);
    const view = await readThreadCheckpoints({ store: h.store, threadId: shape.threadId });
    const tips = all(view).filter((c) => c.position === "abandoned_tip");
    expect(tips.length).toBeGreaterThan(0);
    for (const tip of tips) expect(tip.verdict).toEqual({ status: "reclaimable", form: "branch_tip" });
    expect(byId(view, shape.siblingLeafId).position).toMatch(/^abandoned/);
    expect(view.turns.some((t) => !t.current)).toBe(true);
    const goes = all(view).filter((c) => c.verdict.status === "reclaimable" && c.verdict.form !== "next_run").map((c) => c.checkpointId);
    const stays = all(view).filter((c) => !goes.includes(c.checkpointId)).map((c) => c.checkpointId);
    await maintainThread({ store: h.store, dryRun: false, graftLinks: true, keepRunHistoryCarrier: true }, shape.threadId);
    const left = [...(await loadThreadGraph(h.store, shape.threadId)).nodes.keys()];
    expect(left.sort()).toEqual(stays.sort());
  });

  it("each run handle is marked held until its time to live ends, then expired; only then does the abandoned branch under run 3's handle read reclaimable", async () => {
    h = await openEngineHarness(db(), config);
    const shape = await buildLeafSibling(h);
    const read = () => readThreadCheckpoints({ store: h!.store, threadId: shape.threadId, handles: handlePolicy(h!.deps) });
    const held = await read();
    // Every handle a run returned (the regenerate's too) carries a handle state, and none is a duration leaf.
    const handles = all(held).filter((c) => c.handle !== null);
    expect(handles.map((c) => c.checkpointId)).toEqual(expect.arrayContaining(shape.runs));
    expect(handles.length).toBeGreaterThan(shape.runs.length);
    for (const c of handles) {
      expect(c.handle).toMatchObject({ expiresAtMs: c.handle!.issuedAtMs + DEFAULT_HANDLE_TTL_DAYS * DAY_MS, expired: false });
      expect(c.kind).not.toBe("duration");
    }
    // Run 3's handle heads the abandoned branch once its leaf is gone: held, so protected by it.
    expect(byId(held, shape.runs[2]!).verdict).toMatchObject({ status: "protected", reasons: expect.arrayContaining(["run_handle"]) });
    advanceClock(h.deps, DEFAULT_HANDLE_TTL_DAYS * DAY_MS + 1);
    const expired = await read();
    for (const c of all(expired).filter((c) => c.handle !== null)) expect(c.handle).toMatchObject({ expired: true });
    expect(byId(expired, shape.runs[2]!).verdict).toMatchObject({ status: "reclaimable" });
    // With no time to live (0) a handle is held without an end.
    const forever = await readThreadCheckpoints({ store: h.store, threadId: shape.threadId, handles: { ...handlePolicy(h.deps), ttlDays: 0 } });
    for (const c of all(forever).filter((c) => c.handle !== null)) expect(c.handle).toMatchObject({ expiresAtMs: null, expired: false });
  });

  it("an unknown thread answers not_found", async () => {
    h = await openEngineHarness(db(), config);
    let code: string | null = null;
    try {
      await readThreadCheckpoints({ store: h.store, threadId: "no-such-thread" });
    } catch (error) {
      code = isAppError(error) ? error.code : "other";
    }
    expect(code).toBe("not_found");
  });
}));
