// Fetchers of the Messages compaction API. Each passes the abort signal on and
// rejects with ApiError (code + status) on any non-2xx answer.
import { fetchJson } from "@/lib/query/fetch-json";
import type { AcceptedOperation, AnalyzeBody, CancelBody, PutPolicyBody, RunBody } from "@/lib/retention/api";
import type { RetentionStatusBody } from "./status-types";

export const RETENTION_PATH = "/api/v1/system/database/tool-payload-retention";

export function fetchRetentionStatus(signal?: AbortSignal): Promise<RetentionStatusBody> {
  return fetchJson<RetentionStatusBody>(RETENTION_PATH, { signal });
}

export function putRetentionPolicy(body: PutPolicyBody, signal?: AbortSignal): Promise<RetentionStatusBody> {
  return fetchJson<RetentionStatusBody>(RETENTION_PATH, { method: "PUT", body, signal });
}

export function postAnalyze(body: AnalyzeBody, signal?: AbortSignal): Promise<AcceptedOperation> {
  return fetchJson<AcceptedOperation>(`${RETENTION_PATH}/analyze`, { method: "POST", body, signal });
}

export function postRun(body: RunBody, signal?: AbortSignal): Promise<AcceptedOperation> {
  return fetchJson<AcceptedOperation>(`${RETENTION_PATH}/run`, { method: "POST", body, signal });
}

export function postCancel(body: CancelBody, signal?: AbortSignal): Promise<unknown> {
  return fetchJson<unknown>(`${RETENTION_PATH}/cancel`, { method: "POST", body, signal });
}
