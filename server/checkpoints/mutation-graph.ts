// State-only mutation graph: one no-op node (entry = finish) over the thread's
// effective schema. Writing "as" that node gives a checkpoint with the agent's
// channel machinery but no pending tasks, so a replaced head stays idle.
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { END, START, StateGraph } from "@langchain/langgraph";
import { agentStateSchema } from "./schema";
import { graphPerSaver } from "./graph-cache";
import type { ModeConfig } from "./mode";

export const MUTATION_NODE = "state_mutation";

export function buildMutationGraph(config: ModeConfig, saver: BaseCheckpointSaver) {
  return new StateGraph(agentStateSchema(config))
    .addNode(MUTATION_NODE, () => ({}))
    .addEdge(START, MUTATION_NODE)
    .addEdge(MUTATION_NODE, END)
    .compile({ checkpointer: saver });
}

export type MutationGraph = ReturnType<typeof buildMutationGraph>;

export const mutationGraph = graphPerSaver(buildMutationGraph);
