// Compiled graphs are costly to build and a saver serves many requests, so
// each graph is built once per (saver, mode, snapshot frequency). An object
// cache, not a statement cache: the saver owns its statements. Keyed weakly
// by the saver, which one runtime's accessor owns: a cache lives and dies
// with its saver and no two runtimes share one.
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { modeKey, type ModeConfig } from "./mode";

export function graphPerSaver<G>(build: (config: ModeConfig, saver: BaseCheckpointSaver) => G): (config: ModeConfig, saver: BaseCheckpointSaver) => G {
  const bySaver = new WeakMap<BaseCheckpointSaver, Map<string, G>>();
  return (config, saver) => {
    const graphs = bySaver.get(saver) ?? new Map<string, G>();
    bySaver.set(saver, graphs);
    const key = modeKey(config);
    const graph = graphs.get(key) ?? build(config, saver);
    graphs.set(key, graph);
    return graph;
  };
}
