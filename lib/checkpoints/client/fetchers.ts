// Browser fetchers for the checkpoint maintenance API. They pass the abort
// signal through and reject with ApiError (typed codes) on any failure,
// including an answer that does not match the documented shape.
import { fetchParsed } from "@/lib/query/fetch-json";
import { checkpointStorageStatus, operationAccepted, threadCheckpointsResponse } from "@/lib/checkpoints/api";
import type { CheckpointOperationKind, CheckpointStorageStatus, OperationAccepted, ThreadCheckpointsResponse } from "@/lib/checkpoints/api";

export const CHECKPOINTS_URL = "/api/v1/system/database/checkpoints";

export function fetchCheckpointStorage(signal?: AbortSignal): Promise<CheckpointStorageStatus> {
  return fetchParsed(checkpointStorageStatus, CHECKPOINTS_URL, { signal });
}

export function startCheckpointOperation(kind: CheckpointOperationKind, signal?: AbortSignal): Promise<OperationAccepted> {
  const path = kind === "analysis" ? `${CHECKPOINTS_URL}/analyze` : `${CHECKPOINTS_URL}/run`;
  return fetchParsed(operationAccepted, path, { method: "POST", body: {}, signal });
}

export function threadCheckpointsUrl(threadId: string): string {
  return `/api/v1/threads/${encodeURIComponent(threadId)}/checkpoints`;
}

export function fetchThreadCheckpoints(threadId: string, signal?: AbortSignal): Promise<ThreadCheckpointsResponse> {
  return fetchParsed(threadCheckpointsResponse, threadCheckpointsUrl(threadId), { signal });
}
