// Browser fetchers for the checkpoint maintenance API. They pass the abort
// signal through and reject with ApiError (typed codes) on any failure,
// including an answer that does not match the documented shape.
import { ApiError, fetchJson } from "@/lib/query/fetch-json";
import {
  checkpointStorageStatus,
  operationAccepted,
  type CheckpointOperationKind,
  type CheckpointStorageStatus,
  type OperationAccepted,
} from "./retention-api";

export const CHECKPOINTS_URL = "/api/v1/system/database/checkpoints";

function malformed(body: unknown): ApiError {
  return new ApiError({ status: 200, code: "unknown_error", message: "Unexpected answer from the server", body, retryAfterSeconds: null });
}

export async function fetchCheckpointStorage(signal?: AbortSignal): Promise<CheckpointStorageStatus> {
  const body = await fetchJson<unknown>(CHECKPOINTS_URL, { signal });
  const parsed = checkpointStorageStatus.safeParse(body);
  if (!parsed.success) throw malformed(body);
  return parsed.data;
}

export async function startCheckpointOperation(kind: CheckpointOperationKind, signal?: AbortSignal): Promise<OperationAccepted> {
  const path = kind === "analysis" ? `${CHECKPOINTS_URL}/analyze` : `${CHECKPOINTS_URL}/run`;
  const body = await fetchJson<unknown>(path, { method: "POST", body: {}, signal });
  const parsed = operationAccepted.safeParse(body);
  if (!parsed.success) throw malformed(body);
  return parsed.data;
}
