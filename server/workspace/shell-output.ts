import "server-only";
// Lazy shell output of one tool_execute message, as one value (the route
// streams the same answer from a read thread: read-thread/run-task.ts). The
// compaction marker is checked before any output is returned: once a
// payload was removed the answer is 410 tool_payload_removed with the
// removal time and the retained summary (TPR-TX-06), never a stale or
// partial body.
import type { ShellOutputResponse } from "@/lib/conversation/api";
import { AppError } from "@/server/errors";
import { planShellOutput, removedError, shellOutputText } from "./shell-output-body";
import type { WorkspaceStore } from "./store";

export type ShellOutput = ShellOutputResponse;

export async function getShellOutput(store: WorkspaceStore, messageId: string): Promise<ShellOutput> {
  const row = await store.readMessage(messageId);
  if (!row) throw new AppError("not_found", "Message not found");
  if (row.type !== "tool_execute") throw new AppError("not_found", "This message has no shell output");
  const plan = planShellOutput(row.metadata);
  if (plan.kind === "removed") throw removedError(plan);
  return JSON.parse([...shellOutputText({ messageId, metadata: row.metadata, plan })].join("")) as ShellOutput;
}
