// Fetchers of the Messages compaction API. Each passes the abort signal on,
// checks the answer against its schema and rejects with ApiError (code +
// status) on any non-2xx or unexpected answer.
import { fetchParsed } from "@/lib/query/fetch-json";
import { acceptedOperationSchema, compactionStatusBodySchema } from "@/lib/compaction/api";
import type { AcceptedOperation, AnalyzeBody, CancelBody, PutPolicyBody, CompactionStatusBody, RunBody } from "@/lib/compaction/api";

export const COMPACTION_PATH = "/api/v1/system/database/tool-payload-retention";

export function fetchCompactionStatus(signal?: AbortSignal): Promise<CompactionStatusBody> {
  return fetchParsed(compactionStatusBodySchema, COMPACTION_PATH, { signal });
}

export function putCompactionPolicy(body: PutPolicyBody, signal?: AbortSignal): Promise<CompactionStatusBody> {
  return fetchParsed(compactionStatusBodySchema, COMPACTION_PATH, { method: "PUT", body, signal });
}

export function postAnalyze(body: AnalyzeBody, signal?: AbortSignal): Promise<AcceptedOperation> {
  return fetchParsed(acceptedOperationSchema, `${COMPACTION_PATH}/analyze`, { method: "POST", body, signal });
}

export function postRun(body: RunBody, signal?: AbortSignal): Promise<AcceptedOperation> {
  return fetchParsed(acceptedOperationSchema, `${COMPACTION_PATH}/run`, { method: "POST", body, signal });
}

export function postCancel(body: CancelBody, signal?: AbortSignal): Promise<CompactionStatusBody> {
  return fetchParsed(compactionStatusBodySchema, `${COMPACTION_PATH}/cancel`, { method: "POST", body, signal });
}
