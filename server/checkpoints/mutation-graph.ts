// State-only mutation graph: one no-op node (entry = finish) over the thread's
// effective schema. Writing "as" that node gives a checkpoint with the agent's
// channel machinery but no pending tasks, so a replaced head stays idle.
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { END, START, StateGraph } from "@langchain/langgraph";
import { agentStateSchema } from "./schema";
import { modeKey, type ModeConfig } from "./mode";

export const MUTATION_NODE = "state_mutation";

export function buildMutationGraph(config: ModeConfig, saver: BaseCheckpointSaver) {
  return new StateGraph(agentStateSchema(config))
    .addNode(MUTATION_NODE, () => ({}))
    .addEdge(START, MUTATION_NODE)
    .addEdge(MUTATION_NODE, END)
    .compile({ checkpointer: saver });
}

export type MutationGraph = ReturnType<typeof buildMutationGraph>;

const cache = new WeakMap<BaseCheckpointSaver, Map<string, MutationGraph>>();

export function mutationGraph(config: ModeConfig, saver: BaseCheckpointSaver): MutationGraph {
  let bySaver = cache.get(saver);
  if (!bySaver) {
    bySaver = new Map();
    cache.set(saver, bySaver);
  }
  const key = modeKey(config);
  let graph = bySaver.get(key);
  if (!graph) {
    graph = buildMutationGraph(config, saver);
    bySaver.set(key, graph);
  }
  return graph;
}
