// Fetchers of a task's hold and per-task payload restore. Each passes the
// abort signal on, checks the answer against its schema and rejects with
// ApiError on any non-2xx or unexpected answer.
import { fetchParsed } from "@/lib/query/fetch-json";
import {
  payloadRestoreUrl,
  restoreReportSchema,
  restoreStartedSchema,
  restoreSummarySchema,
  taskHoldSchema,
  taskHoldUrl,
  type RestoreReport,
  type RestoreSummary,
  type TaskHold,
} from "@/lib/task-compaction/api";

export function fetchTaskHold(taskId: string, signal?: AbortSignal): Promise<TaskHold> {
  return fetchParsed(taskHoldSchema, taskHoldUrl(taskId), { signal });
}

export function putTaskHold(options: { taskId: string; held: boolean; signal?: AbortSignal }): Promise<TaskHold> {
  return fetchParsed(taskHoldSchema, taskHoldUrl(options.taskId), { method: "PUT", body: { held: options.held }, signal: options.signal });
}

export function fetchRestoreSummary(taskId: string, signal?: AbortSignal): Promise<RestoreSummary> {
  return fetchParsed(restoreSummarySchema, payloadRestoreUrl(taskId), { signal });
}

export type RestoreChoice = { taskId: string; backup: string | null; hold: boolean };

const bodyOf = (choice: RestoreChoice) => ({ ...(choice.backup ? { backup: choice.backup } : {}), hold: choice.hold });

export function postRestoreDryRun(choice: RestoreChoice & { signal?: AbortSignal }): Promise<RestoreReport> {
  return fetchParsed(restoreReportSchema, payloadRestoreUrl(choice.taskId), { method: "POST", body: { ...bodyOf(choice), dryRun: true }, signal: choice.signal });
}

export async function postRestore(choice: RestoreChoice & { signal?: AbortSignal }): Promise<string> {
  return (await fetchParsed(restoreStartedSchema, payloadRestoreUrl(choice.taskId), { method: "POST", body: bodyOf(choice), signal: choice.signal })).operationId;
}
