import "server-only";
// Read verbs of the conversation view. Tool summaries come out of the store
// already extracted (no payload body crosses into JS and no JSON.parse on
// stored metadata); invalid stored JSON yields no summary (fail closed).
import type { TaskConversation, TaskListResponse } from "@/lib/conversation/api";
import type { WorkspaceStore } from "../store";
import { conversationOf, CONVERSATION_ROWS } from "./conversation";

export async function listTasks(store: WorkspaceStore, options: { limit: number; offset: number }): Promise<TaskListResponse> {
  const { tasks, total } = await store.listTasks(options);
  return { tasks, total, limit: options.limit, offset: options.offset };
}

/** The conversation view read through a store (the route reads it on a read thread: read-thread/). */
export async function readTaskConversation(store: WorkspaceStore, taskId: string): Promise<TaskConversation> {
  return conversationOf(await store.readTaskHeader(taskId), await store.listConversationRows(taskId, CONVERSATION_ROWS));
}
