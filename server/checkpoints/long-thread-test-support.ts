// Long threads for tests, fast: appends tiny turns (a human message and an
// answer) as real checkpoints in the exact shape LangGraph's state mutation
// graph writes them (`source: "update"`), one per turn, through the saver's
// put/putWrites, without materializing the state at every step (which makes
// a 1,000-turn thread take minutes). Full mode: every checkpoint holds the
// whole conversation. Delta mode: the turn's messages are the parent's
// pending write, the child omits the channel, and every `snapshotFrequency`
// updates the child holds a delta snapshot, with LangGraph's counters.
// Messages are handed to the serializer already in LangChain's constructor
// form (the bytes LangGraph writes), so they are not re-serialized per step.
import { randomUUID } from "node:crypto";
import { copyCheckpoint, DeltaSnapshot, uuid6, type CheckpointMetadata } from "@langchain/langgraph-checkpoint";
import type { CheckpointAccessor } from "./accessor";

type LcMessage = { lc: 1; type: "constructor"; id: string[]; kwargs: Record<string, unknown> };

function lcMessage(kind: "HumanMessage" | "AIMessage", id: string, content: string): LcMessage {
  const kwargs: Record<string, unknown> = { id, content, additional_kwargs: {}, response_metadata: {} };
  if (kind === "AIMessage") Object.assign(kwargs, { tool_calls: [], invalid_tool_calls: [] });
  return { lc: 1, type: "constructor", id: ["langchain_core", "messages", kind], kwargs };
}

/** The newest checkpoint id sorts last: mint until it does. */
function idAfter(previous: string, step: number): string {
  let id = uuid6(step);
  for (let i = 0; id <= previous && i < 100_000; i += 1) id = uuid6(step);
  if (id <= previous) throw new Error("could not mint a checkpoint id after the head");
  return id;
}

export type AppendOptions = { accessor: CheckpointAccessor; threadId: string; turns: number; newId: () => string };

/** Appends `turns` turns onto the thread's head; answers the message ids written, oldest first. */
export async function appendTurns(options: AppendOptions): Promise<string[]> {
  const { accessor, threadId, turns, newId } = options;
  const delta = accessor.config.mode === "delta";
  const head = await accessor.getState(threadId);
  if (!head) throw new Error(`thread ${threadId} does not exist`);
  // The conversation so far, in stored form (only full mode and snapshots need it).
  let conversation: LcMessage[] = head.values.messages.map((m) => lcMessage(m.getType() === "human" ? "HumanMessage" : "AIMessage", String(m.id), String(m.content)));
  let tuple = await accessor.rawTuple(threadId);
  if (!tuple) throw new Error(`thread ${threadId} has no head`);
  let headId = String(tuple.config.configurable?.checkpoint_id);
  let meta = tuple.metadata as Record<string, unknown>;
  let counters = ((meta.counters_since_delta_snapshot as Record<string, [number, number]> | undefined)?.messages ?? [0, 0]) as [number, number];
  const written: string[] = [];
  for (let turn = 0; turn < turns; turn += 1) {
    const pair = [lcMessage("HumanMessage", newId(), `q${turn}`), lcMessage("AIMessage", newId(), `a${turn}`)];
    written.push(String(pair[0]!.kwargs.id), String(pair[1]!.kwargs.id));
    conversation = [...conversation, ...pair];
    const parentConfig = accessor.runConfig(threadId, headId);
    if (delta) await accessor.saver.putWrites(parentConfig, [["messages", pair]], randomUUID());
    const checkpoint = copyCheckpoint(tuple.checkpoint);
    const step = (typeof meta.step === "number" ? meta.step : 0) + 1;
    checkpoint.id = idAfter(headId, step);
    checkpoint.ts = new Date(Date.parse(tuple.checkpoint.ts) + 1).toISOString();
    const version = Math.max(...Object.values(checkpoint.channel_versions).map(Number)) + 1;
    checkpoint.channel_versions = { ...checkpoint.channel_versions, messages: version };
    const metadata: Record<string, unknown> = { source: "update", step, parents: {} };
    if (delta) {
      counters = [counters[0] + 1, counters[1] + 1];
      metadata.delta_writes_versioned = true;
      if (counters[0] >= accessor.config.snapshotFrequency) {
        checkpoint.channel_values.messages = new DeltaSnapshot(conversation);
        counters = [0, 0];
      } else {
        delete checkpoint.channel_values.messages;
        metadata.counters_since_delta_snapshot = { messages: counters };
      }
    } else {
      checkpoint.channel_values.messages = conversation;
    }
    const next = await accessor.saver.put(parentConfig, checkpoint, metadata as CheckpointMetadata, { messages: version });
    headId = String(next.configurable?.checkpoint_id);
    tuple = { config: next, checkpoint, metadata: metadata as CheckpointMetadata, parentConfig };
    meta = metadata;
  }
  return written;
}
