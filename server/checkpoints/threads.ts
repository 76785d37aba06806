// Thread verbs: create, read state and history, regenerate, branch.
import type { BaseMessage } from "@langchain/core/messages";
import { AppError } from "@/server/errors";
import type { HistoryItem, ThreadState, ThreadTitle } from "@/lib/checkpoints/api";
import type { ThreadSnapshot } from "./accessor";
import { findCheckpointBeforeMessage } from "./lineage";
import { startRun, type RunDeps, type RunResult } from "./runs";
import { withThreadLock } from "./thread-lock";
import { viewHistoryItem, viewState } from "./view";

/** A new thread starts with an idle, empty checkpoint (a replay base for turn one). */
export async function createThread(deps: RunDeps): Promise<{ threadId: string }> {
  const threadId = deps.newId();
  await withThreadLock(deps.locks, threadId, () => deps.accessor.replace(threadId, {}));
  return { threadId };
}

export async function readThreadState(deps: RunDeps, threadId: string): Promise<ThreadState> {
  const snapshot = await deps.accessor.getState(threadId);
  if (!snapshot) throw new AppError("not_found", `Thread ${threadId} does not exist`);
  return viewState(snapshot);
}

/** Each thread's title channel, read from its head state one thread at a time; an unknown thread is found: false. */
export async function readThreadTitles(deps: RunDeps, threadIds: readonly string[]): Promise<ThreadTitle[]> {
  const out: ThreadTitle[] = [];
  for (const threadId of threadIds) {
    const snapshot = await deps.accessor.getState(threadId);
    out.push({ threadId, found: snapshot !== null, title: snapshot?.values.title ?? null });
  }
  return out;
}

export async function readThreadHistory(deps: RunDeps, threadId: string, limit: number): Promise<HistoryItem[]> {
  if (limit === 0) return [];
  const items = await deps.accessor.history(threadId, limit);
  if (items.length === 0 && !(await deps.accessor.gate(threadId))) throw new AppError("not_found", `Thread ${threadId} does not exist`);
  return items.map(viewHistoryItem);
}

/** The handle of the run that minted a message, from the thread's recorded runs (the lineage walk starts its bisection there). */
function mintedIn(deps: RunDeps, threadId: string): ((messageId: string) => Promise<string | null>) | undefined {
  const store = deps.store;
  if (!store) return undefined;
  return async (messageId) => (await store.listRuns(threadId)).find((run) => run.handleId !== null && run.messageIds.includes(messageId))?.handleId ?? null;
}

/** The lineage walk starts from the snapshot just read (no second head read). */
function walkStart(head: ThreadSnapshot): { checkpointId: string; messageIds: string[] } {
  return { checkpointId: head.checkpointId, messageIds: head.values.messages.map((m) => String(m.id)) };
}

type Located = { messages: BaseMessage[]; index: number; head: ThreadSnapshot };

async function locateAssistantMessage(deps: RunDeps, threadId: string, messageId: string): Promise<Located> {
  const head = await deps.accessor.getState(threadId);
  if (!head) throw new AppError("not_found", `Thread ${threadId} does not exist`);
  const messages = head.values.messages;
  const index = messages.findIndex((m) => m.id === messageId);
  if (index < 0) throw new AppError("not_found", `Message ${messageId} is not in thread ${threadId}`);
  if (messages[index]!.getType() !== "ai") throw new AppError("invalid_request", "Only an assistant message can be regenerated or branched from");
  return { messages, index, head };
}

/**
 * Replaces an assistant answer with a new run from the checkpoint before the
 * human message that prompted it. Later turns leave the visible conversation.
 */
export async function regenerate(deps: RunDeps, threadId: string, messageId: string): Promise<RunResult> {
  // Validate outside the lock (cheap 400/404), resolve the base inside it.
  await locateAssistantMessage(deps, threadId, messageId);
  const prepare = async () => {
    const { messages, index, head } = await locateAssistantMessage(deps, threadId, messageId);
    let humanIndex = index;
    while (humanIndex >= 0 && messages[humanIndex]!.getType() !== "human") humanIndex -= 1;
    if (humanIndex < 0) throw new AppError("invalid_request", "No user message prompted this answer");
    const human = messages[humanIndex]!;
    const base = await findCheckpointBeforeMessage({ accessor: deps.accessor, threadId, messageId: String(human.id), from: walkStart(head), mintedIn: mintedIn(deps, threadId) });
    if (!base) throw new AppError("conflict", "This answer has no replay base in its thread and cannot be regenerated");
    const content = typeof human.content === "string" ? human.content : JSON.stringify(human.content);
    return { content, checkpointId: base };
  };
  return startRun(deps, { threadId, content: "", prepare });
}

/**
 * A new thread holding the conversation through the given assistant message.
 * The materialized state is written through the mutation graph; no raw
 * checkpoint tuple is copied across threads (delta state depends on ancestry).
 */
export async function branch(deps: RunDeps, threadId: string, messageId: string): Promise<{ threadId: string }> {
  const { messages, index, head } = await locateAssistantMessage(deps, threadId, messageId);
  const nextHuman = messages.slice(index + 1).find((m) => m.getType() === "human");
  let source: ThreadSnapshot | null = head;
  if (nextHuman) {
    const base = await findCheckpointBeforeMessage({ accessor: deps.accessor, threadId, messageId: String(nextHuman.id), from: walkStart(head), mintedIn: mintedIn(deps, threadId) });
    if (base) source = await deps.accessor.getState(threadId, base);
  }
  if (!source) throw new AppError("not_found", `Thread ${threadId} does not exist`);
  const cut = source.values.messages.findIndex((m) => m.id === messageId);
  // Without a discoverable base the head is cut after the message.
  const through = cut >= 0 ? source.values.messages.slice(0, cut + 1) : messages.slice(0, index + 1);
  const created = deps.newId();
  await withThreadLock(deps.locks, created, () =>
    deps.accessor.replace(created, { messages: through, title: source.values.title, notes: source.values.notes }),
  );
  return { threadId: created };
}
