// Thread state schemas per channel mode. `messages` is the only channel whose
// storage differs: a reducer channel in full mode, a DeltaChannel in delta
// mode.
import type { BaseMessage } from "@langchain/core/messages";
import {
  Annotation,
  DeltaChannel,
  messagesDeltaReducer,
  messagesStateReducer,
  type AnnotationRoot,
} from "@langchain/langgraph";
import type { ModeConfig } from "./mode";

function messagesChannel(config: ModeConfig) {
  if (config.mode === "delta") {
    const frequency = config.snapshotFrequency;
    // A factory, so each graph gets its own channel instance.
    return () => new DeltaChannel<BaseMessage[], BaseMessage | BaseMessage[]>(messagesDeltaReducer, { snapshotFrequency: frequency });
  }
  return Annotation<BaseMessage[], BaseMessage | BaseMessage[]>({
    reducer: messagesStateReducer,
    default: () => [],
  });
}

/** The base thread state: conversation and title. */
function buildBaseSpec(config: ModeConfig) {
  return {
    messages: messagesChannel(config) as unknown as ReturnType<typeof Annotation<BaseMessage[], BaseMessage | BaseMessage[]>>,
    title: Annotation<string | null>({ reducer: (_prev: string | null, next: string | null) => next, default: () => null }),
  };
}

/**
 * The agent's effective schema: the base plus an extension channel (`notes`,
 * an append reducer) standing for middleware-contributed state. Writers that
 * replace state must use this schema or they silently drop `notes`.
 */
function buildAgentSpec(config: ModeConfig) {
  return {
    ...buildBaseSpec(config),
    notes: Annotation<string[], string | string[]>({
      reducer: (prev: string[], next: string | string[]) => prev.concat(next),
      default: () => [],
    }),
  };
}

export type AgentSpec = ReturnType<typeof buildAgentSpec>;
export type AgentSchema = AnnotationRoot<AgentSpec>;
export type AgentValues = { messages: BaseMessage[]; title: string | null; notes: string[] };


/**
 * The agent's schema for one (mode, snapshot frequency). Built fresh per
 * call: each compiled graph is built once per saver (graph-cache.ts), so no
 * schema outlives, or is shared beyond, the runtime whose saver it serves.
 */
export function agentStateSchema(config: ModeConfig): AgentSchema {
  return Annotation.Root(buildAgentSpec(config));
}

/** Schema default for every channel: what a head-only channel is reset to. */
export function schemaDefaults(): AgentValues {
  return { messages: [], title: null, notes: [] };
}

/** Channels stored as DeltaChannel in delta mode (sentinel + writes, snapshot every N steps). */
export const DELTA_CHANNELS: readonly string[] = ["messages"];
