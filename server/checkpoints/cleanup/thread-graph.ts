// A thread's root-namespace checkpoints as a graph for retention decisions.
// The store reads rows without decoding stored state; anything it cannot
// read answers "unknown", which every caller treats as "cannot prove".
import type { CheckpointRow, CheckpointStore, HandleRecord } from "../store";

export type CheckpointNode = CheckpointRow;

export type ThreadGraph = {
  threadId: string;
  nodes: Map<string, CheckpointNode>;
  children: Map<string, string[]>;
  /** The newest checkpoint (what `getTuple` without an id answers). */
  headId: string | null;
  /** Rows outside the root namespace: the thread is left alone. */
  foreignNamespaceRows: number;
  /** Handles runs handed out (checkpoint_runs), by checkpoint id: the newest issue of each. */
  handles: Map<string, HandleRecord>;
};

/** Every root-namespace checkpoint of a thread with its writes tally. */
export async function loadThreadGraph(store: CheckpointStore, threadId: string): Promise<ThreadGraph> {
  const rows = await store.listThreadCheckpoints(threadId);
  const nodes = new Map<string, CheckpointNode>();
  const children = new Map<string, string[]>();
  for (const r of rows) {
    nodes.set(r.id, r);
    if (r.parentId) children.set(r.parentId, [...(children.get(r.parentId) ?? []), r.id]);
  }
  const handles = new Map<string, HandleRecord>();
  for (const h of await store.threadHandles(threadId)) if ((handles.get(h.checkpointId)?.issuedAtMs ?? -Infinity) <= h.issuedAtMs) handles.set(h.checkpointId, h);
  return { threadId, nodes, children, headId: rows.length ? rows[rows.length - 1]!.id : null, foreignNamespaceRows: await store.foreignNamespaceRows(threadId), handles };
}
