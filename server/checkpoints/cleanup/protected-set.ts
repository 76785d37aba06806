// The protected set (checkpoint-retention-contract): the one place every
// deletion path asks "may this checkpoint go?". A checkpoint is protected as
//  - run_handle: a run handed it out as its checkpointId (every run does,
//    success, error or cancelled: always a state checkpoint, never a
//    duration leaf) and CHECKPOINT_HANDLE_TTL_DAYS have not passed since
//    (handles.ts). This is the spec's explicit resume target with an explicit
//    time to live: a handle a full-mode fork left on an abandoned branch (its
//    tip, childless once admission took its leaf) stays resumable until then;
//    after that the next Clean up may reclaim it, and a resume answers
//    checkpoint_handle_expired (410).
//  - explicit_resume_target: an id in the caller's pin set. The server pins
//    what it knows a client is using right now: the admitted run's
//    checkpointId selector (admission cleanup) and any ids handed to the
//    maintenance engine.
//  - branch_ancestor: on the parent chain from the newest checkpoint to the
//    root (a superset of the walk branch/regenerate take).
//  - pending_writes: it has rows in `writes` (uncommitted or delta state).
//  - duration_chain_link: a duration-only checkpoint a later checkpoint was
//    parented on; only `graftAndDelete` may remove it, in one transaction.
//  - newest: the head, unless it is a trailing duration-only leaf whose
//    addressable parent has identical channel_versions (the parent then is
//    the newest, with the same state).
// Whatever cannot be proven (other namespaces, broken lineage, unreadable
// rows) is refused.
import { DELTA_CHANNELS } from "../schema";
import type { CheckpointStore, Deleted } from "../store";
import { isHandleLive, type HandlePolicy } from "../handles";
import { loadThreadGraph, type CheckpointNode, type ThreadGraph } from "./thread-graph";

export type ProtectionReason =
  | "explicit_resume_target"
  | "branch_ancestor"
  | "pending_writes"
  | "duration_chain_link"
  | "newest"
  | "has_children"
  | "unknown_namespace"
  | "broken_lineage"
  | "not_found"
  | "run_handle";

export type DeletionForm = "trailing_duration_leaf" | "leaf_sibling";
export type Verdict = { deletable: true; form: DeletionForm } | { deletable: false; reasons: ProtectionReason[] };

export type JudgeOptions = {
  store: CheckpointStore;
  graph: ThreadGraph;
  checkpointId: string;
  pins?: ReadonlySet<string>;
  /** The clock and time to live handles are judged by; without it every recorded handle is live. */
  handles?: HandlePolicy;
  /** headChain(graph), when the caller judges many checkpoints of one graph. */
  chain?: Set<string> | null;
};

/** Ids on the parent chain from the head; null when a link dangles or cycles. */
export function headChain(graph: ThreadGraph): Set<string> | null {
  const chain = new Set<string>();
  let id = graph.headId;
  while (id !== null) {
    if (chain.has(id)) return null;
    const node = graph.nodes.get(id);
    if (!node) return null;
    chain.add(id);
    id = node.parentId;
  }
  return chain;
}

/** The checkpoint and the thread-wide protections both judges start from; null when it is unknown. */
function threadReasons(options: JudgeOptions): { node: CheckpointNode; chain: Set<string> | null; reasons: ProtectionReason[] } | null {
  const { graph } = options;
  const node = graph.nodes.get(options.checkpointId);
  if (!node) return null;
  const reasons: ProtectionReason[] = [];
  if (graph.foreignNamespaceRows > 0) reasons.push("unknown_namespace");
  const chain = options.chain === undefined ? headChain(graph) : options.chain;
  if (!chain) reasons.push("broken_lineage");
  return { node, chain, reasons };
}

/** Whether the checkpoint is a handle whose time to live has not run out. */
function isLiveHandle(options: JudgeOptions): boolean {
  const handle = options.graph.handles.get(options.checkpointId);
  return handle !== undefined && isHandleLive(handle, options.handles);
}

/** Why a checkpoint may not be deleted by a plain joint delete, or which safe form it is. */
export async function judgeDeletion(options: JudgeOptions): Promise<Verdict> {
  const { store, graph, checkpointId: id, pins } = options;
  const start = threadReasons(options);
  if (!start) return { deletable: false, reasons: ["not_found"] };
  const { node, chain, reasons } = start;
  if (pins?.has(id)) reasons.push("explicit_resume_target");
  if (isLiveHandle(options)) reasons.push("run_handle");
  if (node.writesCount > 0) reasons.push("pending_writes");
  const kids = graph.children.get(id) ?? [];
  if (kids.length > 0) reasons.push(node.durationOnly ? "duration_chain_link" : "has_children");
  if (id === graph.headId) {
    const parent = node.parentId ? graph.nodes.get(node.parentId) : undefined;
    const proof = parent && node.durationOnly ? await store.compareWithParent(graph.threadId, id, parent.id) : null;
    if (!proof?.versionsEqual) reasons.push("newest");
    if (reasons.length === 0) return { deletable: true, form: "trailing_duration_leaf" };
    return { deletable: false, reasons };
  }
  if (chain?.has(id)) reasons.push("branch_ancestor");
  if (reasons.length === 0) return { deletable: true, form: "leaf_sibling" };
  return { deletable: false, reasons };
}

/** Every checkpoint of the thread with its protection reasons (deletable ones absent). */
export async function protectedSet(options: Omit<JudgeOptions, "checkpointId">): Promise<Map<string, ProtectionReason[]>> {
  const out = new Map<string, ProtectionReason[]>();
  const chain = headChain(options.graph);
  for (const id of options.graph.nodes.keys()) {
    const v = await judgeDeletion({ ...options, chain, checkpointId: id });
    if (!v.deletable) out.set(id, v.reasons);
  }
  return out;
}

/** What the bounded admission cleanup looked up: the head, its parent, a writes probe. */
export type AdmissionFacts = {
  head: { id: string; parentId: string | null; durationOnly: boolean; versions: string | null };
  /** Undefined: the parent was not looked up or is missing. */
  parent?: { versions: string | null };
  headHasWrites?: boolean;
  /** The admitted run's checkpoint selectors (explicit resume targets). */
  selectors: readonly string[];
};

export type AdmissionReason = "head_not_duration_leaf" | "selected_by_run" | "missing_parent" | "versions_differ" | "pending_writes";

/**
 * The protected set as seen from the bounded admission path: the head may go
 * only as a trailing duration-only leaf that the run does not select, whose
 * addressable parent has the identical channel_versions map, with no writes.
 * Answers the first protection that applies, or null when deletable; the
 * caller stops looking things up as soon as a reason is known.
 */
export function judgeAdmission(facts: AdmissionFacts): AdmissionReason | null {
  const { head, parent, headHasWrites, selectors } = facts;
  if (!head.durationOnly) return "head_not_duration_leaf";
  if (selectors.includes(head.id)) return "selected_by_run";
  if (!head.parentId || !parent) return "missing_parent";
  if (head.versions === null || parent.versions !== head.versions) return "versions_differ";
  if (headHasWrites !== false) return "pending_writes";
  return null;
}

export type GraftReason = ProtectionReason | "state_differs" | "parent_has_task_writes" | "not_a_link";
export type GraftVerdict = { graftable: true; parentId: string } | { graftable: false; reasons: GraftReason[] };

/**
 * A duration-only chain link may be removed only by grafting its children
 * onto its parent. Provable when the link has no writes, is not pinned, its
 * parent is addressable and holds byte-identical channel_versions and
 * channel_values (the link is a copy), and the parent carries no TASKS writes
 * (those would become the children's pending sends). Then every walk through
 * the link (lineage, delta history) sees exactly what it saw before.
 */
export async function judgeGraft(options: JudgeOptions): Promise<GraftVerdict> {
  const { store, graph, checkpointId: id, pins } = options;
  const start = threadReasons(options);
  if (!start) return { graftable: false, reasons: ["not_found"] };
  const { node } = start;
  const reasons: GraftReason[] = start.reasons;
  if (!node.durationOnly || (graph.children.get(id) ?? []).length === 0) reasons.push("not_a_link");
  if (pins?.has(id)) reasons.push("explicit_resume_target");
  if (isLiveHandle(options)) reasons.push("run_handle");
  if (node.writesCount > 0) reasons.push("pending_writes");
  const parent = node.parentId ? graph.nodes.get(node.parentId) : undefined;
  if (!parent) reasons.push("broken_lineage");
  if (reasons.length === 0 && parent) {
    const proof = await store.compareWithParent(graph.threadId, id, parent.id, DELTA_CHANNELS);
    if (!proof || !proof.versionsEqual || !proof.valuesEqual) reasons.push("state_differs");
    else if (proof.parentHasTaskWrites) reasons.push("parent_has_task_writes");
  }
  if (reasons.length === 0 && parent) return { graftable: true, parentId: parent.id };
  return { graftable: false, reasons };
}

/** Re-parents the link's children onto its parent and deletes the link (call inside a transaction). */
export async function graftJointly(store: CheckpointStore, threadId: string, linkId: string, parentId: string): Promise<Deleted> {
  await store.reparentChildren(threadId, linkId, parentId);
  return store.deleteCheckpoints(threadId, [linkId]);
}

export type SafeDeleteResult = { deleted: boolean; verdict: Verdict | GraftVerdict };

export type SafeDeleteOptions = {
  store: CheckpointStore;
  threadId: string;
  checkpointId: string;
  pins?: ReadonlySet<string>;
  handles?: HandlePolicy;
};

/** Judges on a fresh graph and acts in one writer transaction (held across the awaits); a refusal changes nothing. */
function judgeThenAct<V extends Verdict | GraftVerdict>(
  options: SafeDeleteOptions,
  judge: (o: JudgeOptions) => Promise<V>,
  act: (verdict: V) => Promise<boolean>,
): Promise<SafeDeleteResult> {
  const { store, threadId } = options;
  return store.transaction(async (): Promise<SafeDeleteResult> => {
    const verdict = await judge({ ...options, graph: await loadThreadGraph(store, threadId) });
    if (!(await act(verdict))) return { deleted: false, verdict };
    return { deleted: true, verdict };
  });
}

/** Judges and deletes one checkpoint in one writer transaction; protected ones are left alone. */
export function deleteCheckpointSafely(options: SafeDeleteOptions): Promise<SafeDeleteResult> {
  return judgeThenAct(options, judgeDeletion, async (verdict) => {
    if (!verdict.deletable) return false;
    await options.store.deleteCheckpoints(options.threadId, [options.checkpointId]);
    return true;
  });
}

/** Proves and grafts one duration chain link in one writer transaction; refuses otherwise. */
export function graftAndDelete(options: SafeDeleteOptions): Promise<SafeDeleteResult> {
  return judgeThenAct(options, judgeGraft, async (verdict) => {
    if (!verdict.graftable) return false;
    await graftJointly(options.store, options.threadId, options.checkpointId, verdict.parentId);
    return true;
  });
}
