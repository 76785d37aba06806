// Fetchers of the Messages compaction API. Each passes the abort signal on,
// checks the answer against its schema and rejects with ApiError (code +
// status) on any non-2xx or unexpected answer.
import { fetchParsed } from "@/lib/query/fetch-json";
import { acceptedOperationSchema, retentionStatusBodySchema } from "@/lib/compaction/api";
import type { AcceptedOperation, AnalyzeBody, CancelBody, PutPolicyBody, RetentionStatusBody, RunBody } from "@/lib/compaction/api";

export const RETENTION_PATH = "/api/v1/system/database/tool-payload-retention";

export function fetchRetentionStatus(signal?: AbortSignal): Promise<RetentionStatusBody> {
  return fetchParsed(retentionStatusBodySchema, RETENTION_PATH, { signal });
}

export function putRetentionPolicy(body: PutPolicyBody, signal?: AbortSignal): Promise<RetentionStatusBody> {
  return fetchParsed(retentionStatusBodySchema, RETENTION_PATH, { method: "PUT", body, signal });
}

export function postAnalyze(body: AnalyzeBody, signal?: AbortSignal): Promise<AcceptedOperation> {
  return fetchParsed(acceptedOperationSchema, `${RETENTION_PATH}/analyze`, { method: "POST", body, signal });
}

export function postRun(body: RunBody, signal?: AbortSignal): Promise<AcceptedOperation> {
  return fetchParsed(acceptedOperationSchema, `${RETENTION_PATH}/run`, { method: "POST", body, signal });
}

export function postCancel(body: CancelBody, signal?: AbortSignal): Promise<RetentionStatusBody> {
  return fetchParsed(retentionStatusBodySchema, `${RETENTION_PATH}/cancel`, { method: "POST", body, signal });
}
