// Browser fetchers for the checkpoint maintenance API. They pass the abort
// signal through and reject with ApiError (typed codes) on any failure,
// including an answer that does not match the documented shape.
import { fetchParsed } from "@/lib/query/fetch-json";
import { checkpointStorageStatus, operationAccepted } from "@/lib/checkpoints/api";
import type { CheckpointOperationKind, CheckpointStorageStatus, OperationAccepted } from "@/lib/checkpoints/api";

export const CHECKPOINTS_URL = "/api/v1/system/database/checkpoints";

export function fetchCheckpointStorage(signal?: AbortSignal): Promise<CheckpointStorageStatus> {
  return fetchParsed(checkpointStorageStatus, CHECKPOINTS_URL, { signal });
}

export function startCheckpointOperation(kind: CheckpointOperationKind, signal?: AbortSignal): Promise<OperationAccepted> {
  const path = kind === "analysis" ? `${CHECKPOINTS_URL}/analyze` : `${CHECKPOINTS_URL}/run`;
  return fetchParsed(operationAccepted, path, { method: "POST", body: {}, signal });
}
