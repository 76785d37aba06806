// Browser fetchers for the checkpoint maintenance API. They pass the abort
// signal through and reject with ApiError (typed codes) on any failure,
// including an answer that does not match the documented shape.
import { fetchParsed } from "@/lib/query/fetch-json";
import { checkpointStorageStatus, operationAccepted, threadCheckpointsResponse, threadTitlesResponse } from "@/lib/checkpoints/api";
import type { CheckpointOperationKind, CheckpointStorageStatus, OperationAccepted, ThreadCheckpointsResponse, ThreadTitlesResponse } from "@/lib/checkpoints/api";

export const CHECKPOINTS_URL = "/api/v1/system/database/checkpoints";

export function fetchCheckpointStorage(signal?: AbortSignal): Promise<CheckpointStorageStatus> {
  return fetchParsed(checkpointStorageStatus, CHECKPOINTS_URL, { signal });
}

/** A cleanup names the analysis its confirmation showed; the server refuses it (409 analysis_outdated) once that analysis no longer holds. */
export function startCheckpointOperation(request: { kind: CheckpointOperationKind; analysisId?: string }, signal?: AbortSignal): Promise<OperationAccepted> {
  const path = request.kind === "analysis" ? `${CHECKPOINTS_URL}/analyze` : `${CHECKPOINTS_URL}/run`;
  const body = request.kind === "cleanup" && request.analysisId ? { analysisId: request.analysisId } : {};
  return fetchParsed(operationAccepted, path, { method: "POST", body, signal });
}

export function threadCheckpointsUrl(threadId: string): string {
  return `/api/v1/threads/${encodeURIComponent(threadId)}/checkpoints`;
}

export function fetchThreadCheckpoints(threadId: string, signal?: AbortSignal): Promise<ThreadCheckpointsResponse> {
  return fetchParsed(threadCheckpointsResponse, threadCheckpointsUrl(threadId), { signal });
}

export function fetchThreadTitles(threadIds: readonly string[], signal?: AbortSignal): Promise<ThreadTitlesResponse> {
  return fetchParsed(threadTitlesResponse, `/api/v1/threads?ids=${threadIds.map(encodeURIComponent).join(",")}`, { signal });
}
