// Maps materialized thread snapshots to the API shapes of DESIGN.md.
import type { BaseMessage } from "@langchain/core/messages";
import type { HistoryItem, ThreadMessage, ThreadState, ThreadValues } from "@/lib/checkpoints/api";
import type { ThreadSnapshot } from "./accessor";
import type { AgentValues } from "./schema";

function messageType(message: BaseMessage): ThreadMessage["type"] {
  const t: string = message.getType();
  if (t === "human") return "human";
  if (t === "tool") return "tool";
  return "ai";
}

function contentText(message: BaseMessage): string {
  if (typeof message.content === "string") return message.content;
  return message.content.map((part) => (typeof part === "string" ? part : "text" in part ? String(part.text) : "")).join("");
}

export function viewValues(values: AgentValues): ThreadValues {
  return {
    messages: values.messages.map((m) => ({ id: String(m.id ?? ""), type: messageType(m), content: contentText(m) })),
    title: values.title,
  };
}

export function viewState(snapshot: ThreadSnapshot): ThreadState {
  return { threadId: snapshot.threadId, checkpointId: snapshot.checkpointId, values: viewValues(snapshot.values), next: snapshot.next };
}

export function viewHistoryItem(snapshot: ThreadSnapshot): HistoryItem {
  return {
    checkpointId: snapshot.checkpointId,
    parentCheckpointId: snapshot.parentCheckpointId,
    createdAt: snapshot.createdAt,
    metadata: snapshot.metadata,
    values: viewValues(snapshot.values),
  };
}
