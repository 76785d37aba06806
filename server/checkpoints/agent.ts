// The deterministic scripted agent (no model calls). Each run appends the
// human message (given as input), an optional tool call + tool result with a
// payload of configurable size, and an AI reply; it sets the title once and
// appends a note (the extension channel). Message ids come from the run's
// injected id generator, so every run mints new ids.
import { AIMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import type { RunnableConfig } from "@langchain/core/runnables";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { END, START, StateGraph } from "@langchain/langgraph";
import { agentStateSchema, type AgentValues } from "./schema";
import { graphPerSaver } from "./graph-cache";
import type { ModeConfig } from "./mode";

export type AgentScript = {
  runId: string;
  newId: () => string;
  /** Bytes of tool output per run; 0 skips the tool call entirely. */
  toolPayloadBytes: number;
  /** Test hook, called before each node runs (e.g. to cancel mid-run). */
  beforeNode?: (node: string) => void;
};

export const SCRIPT_KEY = "agent_script";

type AgentUpdate = { messages?: BaseMessage[]; title?: string | null; notes?: string[] };

function scriptOf(config: RunnableConfig | undefined): AgentScript {
  const script = config?.configurable?.[SCRIPT_KEY] as AgentScript | undefined;
  if (!script) throw new Error("agent run without a script");
  return script;
}

/** Deterministic filler text of exactly `bytes` ASCII bytes. */
export function toolPayload(bytes: number, seed: string): string {
  const line = `${seed} output line ........................................\n`;
  return line.repeat(Math.ceil(bytes / line.length)).slice(0, bytes);
}

function lastHuman(messages: BaseMessage[]): BaseMessage | undefined {
  for (let i = messages.length - 1; i >= 0; i -= 1) if (messages[i]!.getType() === "human") return messages[i];
  return undefined;
}

function textOf(message: BaseMessage | undefined): string {
  return typeof message?.content === "string" ? message.content : "";
}

function plan(state: AgentValues, config?: RunnableConfig): AgentUpdate {
  const script = scriptOf(config);
  script.beforeNode?.("plan");
  if (script.toolPayloadBytes <= 0) return {};
  const callId = script.newId();
  const call = new AIMessage({
    id: script.newId(),
    content: "",
    tool_calls: [{ id: callId, name: "read_file", args: { path: `notes/${script.runId}.txt` }, type: "tool_call" }],
  });
  void state;
  return { messages: [call] };
}

function tool(state: AgentValues, config?: RunnableConfig): AgentUpdate {
  const script = scriptOf(config);
  script.beforeNode?.("tool");
  const call = state.messages[state.messages.length - 1] as AIMessage;
  const callId = call.tool_calls?.[0]?.id ?? "";
  const result = new ToolMessage({ id: script.newId(), tool_call_id: callId, content: toolPayload(script.toolPayloadBytes, script.runId) });
  return { messages: [result] };
}

function reply(state: AgentValues, config?: RunnableConfig): AgentUpdate {
  const script = scriptOf(config);
  script.beforeNode?.("reply");
  const question = textOf(lastHuman(state.messages));
  const answer = new AIMessage({ id: script.newId(), content: `Answer to "${question}" (run ${script.runId})` });
  const update: AgentUpdate = { messages: [answer], notes: [`run ${script.runId}`] };
  if (state.title === null) update.title = question.slice(0, 60);
  return update;
}

function route(state: AgentValues): "tool" | "reply" {
  const last = state.messages[state.messages.length - 1] as AIMessage | undefined;
  return last && last.getType() === "ai" && (last.tool_calls?.length ?? 0) > 0 ? "tool" : "reply";
}

export function buildAgentGraph(config: ModeConfig, saver: BaseCheckpointSaver) {
  return new StateGraph(agentStateSchema(config))
    .addNode("plan", plan)
    .addNode("tool", tool)
    .addNode("reply", reply)
    .addEdge(START, "plan")
    .addConditionalEdges("plan", route, ["tool", "reply"])
    .addEdge("tool", "reply")
    .addEdge("reply", END)
    .compile({ checkpointer: saver });
}

export type AgentGraph = ReturnType<typeof buildAgentGraph>;

/** Compiled agent graph per saver, keyed on (mode, snapshot frequency). */
export const agentGraph = graphPerSaver(buildAgentGraph);
