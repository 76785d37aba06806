// Agent threads through the real thread API, for specs that need
// checkpoints Clean up can reclaim: in full mode a regenerated answer leaves
// its replaced run behind as an abandoned branch, reclaimable once its run
// handles have expired.
import Database from "better-sqlite3";
import { expect, type APIRequestContext } from "@playwright/test";

type State = { values: { messages: { id: string; type: string }[]; title: string | null } };

export async function createThread(api: APIRequestContext, base: string, prompts: readonly string[]): Promise<string> {
  const headers = { origin: base };
  const created = await api.post(`${base}/api/v1/threads`, { data: {}, headers });
  expect(created.status()).toBe(200);
  const { threadId } = (await created.json()) as { threadId: string };
  for (const content of prompts) {
    const run = await api.post(`${base}/api/v1/threads/${threadId}/runs`, { data: { input: { content } }, headers });
    expect(run.status()).toBe(200);
  }
  return threadId;
}

/** Regenerates the thread's first answer: the runs after it leave the conversation. */
export async function regenerateFirstAnswer(api: APIRequestContext, base: string, threadId: string): Promise<void> {
  const state = (await (await api.get(`${base}/api/v1/threads/${threadId}/state`)).json()) as State;
  const messages = state.values.messages;
  const answer = messages.find((m, i) => m.type === "ai" && messages[i + 1]?.type !== "tool");
  expect(answer).toBeTruthy();
  const run = await api.post(`${base}/api/v1/threads/${threadId}/regenerate`, { data: { messageId: answer!.id }, headers: { origin: base } });
  expect(run.status()).toBe(200);
}

/**
 * Backdates the thread's run handles by `days`. Every run's answered
 * checkpoint is a resume target until CHECKPOINT_HANDLE_TTL_DAYS (30) after
 * it was issued, so a replaced run's branch is reclaimable only once its
 * handle has expired: this is that month passing, written to the server's
 * SQLite file the way the server records an issue time.
 */
export function ageRunHandles(dbFile: string, threadId: string, days: number): void {
  const db = new Database(dbFile);
  try {
    db.pragma("busy_timeout = 10000");
    const changed = db.prepare("UPDATE checkpoint_runs SET issued_at_ms = issued_at_ms - ? WHERE thread_id = ?").run(days * 86_400_000, threadId).changes;
    expect(changed).toBeGreaterThan(0);
  } finally {
    db.close();
  }
}
