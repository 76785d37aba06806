// The thread view's reading verb: every checkpoint of one thread, grouped
// into turns, with what retention would do to it. The judgments are the
// protected set's own (judgeDeletion / judgeGraft), replayed on an in-memory
// copy of the thread graph the way the admin cleanup pass prunes (leaf
// siblings and proven grafts to a fixed point, the trailing duration leaf
// kept for admission). "Reclaimable" in the totals means what it means on
// every screen: what Clean up removes now (the checkpoint analysis counts the
// same). The trailing duration leaf is counted apart (nextRun*): Clean up
// keeps it and the next run's admission removes it. Nothing is written and
// no checkpoint state is decoded.
import type { CheckpointKind, CheckpointPosition, CheckpointVerdict, ProtectionReasonCode, ThreadCheckpoint, ThreadCheckpointsResponse, ThreadTurn } from "@/lib/checkpoints/api";
import { AppError } from "@/server/errors";
import { handleExpiresAt, isHandleLive, type HandlePolicy } from "../handles";
import type { CheckpointOrigin, CheckpointStore } from "../store";
import { headChain, judgeDeletion, judgeGraft, type ProtectionReason } from "./protected-set";
import { loadThreadGraph, type ThreadGraph } from "./thread-graph";

export type ReadThreadCheckpointsOptions = {
  store: CheckpointStore;
  threadId: string;
  /** Explicit resume targets the caller knows of (none over HTTP). */
  pins?: ReadonlySet<string>;
  /** Clock and time to live of run handles (the route passes the runtime's); without it every handle is live. */
  handles?: HandlePolicy;
};

type Reclaim = Extract<CheckpointVerdict, { status: "reclaimable" }>["form"];

function copyGraph(graph: ThreadGraph): ThreadGraph {
  return { ...graph, nodes: new Map(graph.nodes), children: new Map([...graph.children].map(([k, v]) => [k, [...v]])) };
}

function removeNode(graph: ThreadGraph, id: string, newParent: string | null): void {
  const node = graph.nodes.get(id);
  if (!node) return;
  graph.nodes.delete(id);
  const kids = graph.children.get(id) ?? [];
  graph.children.delete(id);
  if (node.parentId) graph.children.set(node.parentId, (graph.children.get(node.parentId) ?? []).filter((k) => k !== id));
  for (const kid of kids) {
    graph.nodes.set(kid, { ...graph.nodes.get(kid)!, parentId: newParent });
    if (newParent) graph.children.set(newParent, [...(graph.children.get(newParent) ?? []), kid]);
  }
}

/** Replays the admin pass on a copy: which checkpoints it (or the next run's admission) would reclaim, and how. */
async function replayCleanup(store: CheckpointStore, original: ThreadGraph, pins?: ReadonlySet<string>, handles?: HandlePolicy): Promise<Map<string, Reclaim>> {
  const out = new Map<string, Reclaim>();
  const graph = copyGraph(original);
  // Every round removes at least one checkpoint, so a thread needs at most its size.
  for (let round = 0; round <= original.nodes.size; round += 1) {
    const chain = headChain(graph);
    if (!chain || graph.foreignNamespaceRows > 0) break;
    const leaves: string[] = [];
    const grafts: Array<[string, string]> = [];
    for (const id of graph.nodes.keys()) {
      if (out.has(id)) continue;
      const verdict = await judgeDeletion({ store, graph, checkpointId: id, pins, handles, chain });
      if (verdict.deletable) {
        if (verdict.form === "trailing_duration_leaf") out.set(id, "next_run");
        else leaves.push(id);
        continue;
      }
      if (!verdict.reasons.includes("duration_chain_link")) continue;
      const graft = await judgeGraft({ store, graph, checkpointId: id, pins, handles, chain });
      if (graft.graftable) grafts.push([id, graft.parentId]);
    }
    if (leaves.length === 0 && grafts.length === 0) break;
    for (const id of leaves) {
      out.set(id, round === 0 ? "branch_tip" : "abandoned_branch");
      removeNode(graph, id, null);
    }
    for (const [id, parentId] of grafts) {
      out.set(id, "graft");
      removeNode(graph, id, parentId);
    }
  }
  return out;
}

function kindOf(origin: CheckpointOrigin | undefined, durationOnly: boolean): CheckpointKind {
  if (durationOnly) return "duration";
  if (origin?.source === "input") return "input";
  if (origin?.source === "loop") return "step";
  if (origin?.source === "update" || origin?.source === "fork") return "rewrite";
  return "unknown";
}

function positionOf(graph: ThreadGraph, chain: Set<string> | null, id: string): CheckpointPosition {
  if (id === graph.headId) return "head";
  if (chain?.has(id)) return "current";
  return (graph.children.get(id) ?? []).length === 0 ? "abandoned_tip" : "abandoned";
}

/**
 * Turns in write order: a turn opens at a run's input checkpoint or at a
 * state rewrite; a run that starts right on top of a rewrite (a resume
 * linearized onto the head) belongs to that rewrite's turn.
 */
function groupTurns(checkpoints: ThreadCheckpoint[]): ThreadTurn[] {
  const turns: ThreadTurn[] = [];
  let current: ThreadTurn | null = null;
  for (const c of checkpoints) {
    const opensTurn = c.kind === "input" || c.kind === "rewrite";
    const joinsRewrite = c.kind === "input" && current?.kind === "rewrite" && current.checkpoints.length === 1 && current.checkpoints[0]!.checkpointId === c.parentCheckpointId;
    if (!current || (opensTurn && !joinsRewrite)) {
      current = { index: turns.length + 1, kind: c.kind === "input" ? "run" : "rewrite", current: false, bytes: 0, reclaimableBytes: 0, checkpoints: [] };
      turns.push(current);
    } else if (joinsRewrite) {
      current.kind = "run";
    }
    current.checkpoints.push(c);
    current.bytes += c.bytes + c.writesBytes;
    if (byCleanup(c)) current.reclaimableBytes += c.bytes + c.writesBytes;
    if (c.position === "head" || c.position === "current") current.current = true;
  }
  return turns;
}

/** Removed by an admin's Clean up (the next run's admission removes the trailing duration leaf instead). */
function byCleanup(c: ThreadCheckpoint): boolean {
  return c.verdict.status === "reclaimable" && c.verdict.form !== "next_run";
}

function wireReasons(reasons: ProtectionReason[]): ProtectionReasonCode[] {
  return reasons.filter((r): r is ProtectionReasonCode => r !== "not_found");
}

/** The thread's checkpoints by turn with kind, size, position and retention verdict; 404 when it has none. */
export async function readThreadCheckpoints(options: ReadThreadCheckpointsOptions): Promise<ThreadCheckpointsResponse> {
  const { store, threadId, pins, handles } = options;
  // No writer transaction (a view must not block runs): a checkpoint written
  // between the two reads is simply absent from the origins (kind unknown).
  const graph = await loadThreadGraph(store, threadId);
  if (graph.nodes.size === 0) throw new AppError("not_found", `Thread ${threadId} does not exist`);
  const origins = new Map((await store.listCheckpointOrigins(threadId)).map((o) => [o.id, o]));
  const chain = headChain(graph);
  const reclaim = await replayCleanup(store, graph, pins, handles);
  const rows: ThreadCheckpoint[] = [];
  for (const node of graph.nodes.values()) {
    const form = reclaim.get(node.id);
    let verdict: CheckpointVerdict;
    if (form) verdict = { status: "reclaimable", form };
    else {
      const judged = await judgeDeletion({ store, graph, checkpointId: node.id, pins, handles, chain });
      const reasons = judged.deletable ? [] : wireReasons(judged.reasons);
      // Deletable in form but not reclaimed by the replay cannot happen; stay closed if it does.
      verdict = { status: "protected", reasons: reasons.length > 0 ? reasons : ["broken_lineage"] };
    }
    const origin = origins.get(node.id);
    const held = graph.handles.get(node.id);
    rows.push({
      checkpointId: node.id,
      parentCheckpointId: node.parentId,
      kind: kindOf(origin, node.durationOnly),
      step: origin?.step ?? null,
      position: positionOf(graph, chain, node.id),
      bytes: node.bytes,
      writes: node.writesCount,
      writesBytes: node.writesBytes,
      verdict,
      handle: held
        ? {
            runId: held.runId,
            issuedAtMs: held.issuedAtMs,
            expiresAtMs: handles ? handleExpiresAt(held.issuedAtMs, handles.ttlDays) : null,
            expired: !isHandleLive(held, handles),
          }
        : null,
    });
  }
  const reclaimable = rows.filter(byCleanup);
  const nextRun = rows.filter((r) => r.verdict.status === "reclaimable" && r.verdict.form === "next_run");
  const size = (list: ThreadCheckpoint[]) => list.reduce((n, r) => n + r.bytes + r.writesBytes, 0);
  return {
    threadId,
    checkpoints: rows.length,
    bytes: size(rows),
    reclaimableCheckpoints: reclaimable.length,
    reclaimableBytes: size(reclaimable),
    nextRunCheckpoints: nextRun.length,
    nextRunBytes: size(nextRun),
    turns: groupTurns(rows),
  };
}
