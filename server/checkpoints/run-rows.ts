// Rows of the admission head lookup and of checkpoint_runs as both engines'
// drivers answer them, mapped to the store's types (numbers may arrive as
// strings from PostgreSQL's bigint, booleans as 0/1 from SQLite).
import type { AdmissionHead, RunRecord, RunStatus } from "./store";

export type AdmissionHeadRow = {
  id: string;
  parentId: string | null;
  recordedRunId: string | null;
  recordedParentId: string | null;
  leafDigest: string | null;
  parentDigest: string | null;
  durationOnly: number | boolean | null;
  versions: string | null;
  durations: string | null;
  messageIds: string | null;
  runOrder: string | null;
};

export function admissionHeadFrom(row: AdmissionHeadRow): AdmissionHead {
  const recorded =
    row.recordedRunId === null
      ? null
      : { runId: row.recordedRunId, parentId: row.recordedParentId, leafDigest: row.leafDigest, parentDigest: row.parentDigest };
  return {
    id: row.id,
    parentId: row.parentId,
    recorded,
    durationOnly: row.durationOnly === true || row.durationOnly === 1,
    versions: recorded ? null : row.versions,
    durations: recorded ? null : row.durations,
    messageIds: recorded ? null : row.messageIds,
    runOrder: recorded ? null : row.runOrder,
  };
}

export type RunRow = Omit<RunRecord, "messageIds" | "durationMs" | "issuedAtMs" | "status"> & {
  status: string;
  messageIds: string;
  durationMs: number | string | null;
  issuedAtMs: number | string;
};

const STATUSES: readonly RunStatus[] = ["success", "error", "cancelled"];

/** A stored row; an unreadable message-id list reads as empty (the run still counts). */
export function runRecordFrom(row: RunRow): RunRecord {
  let messageIds: string[] = [];
  try {
    const parsed: unknown = JSON.parse(row.messageIds);
    if (Array.isArray(parsed) && parsed.every((id) => typeof id === "string")) messageIds = parsed;
  } catch {
    messageIds = [];
  }
  return {
    ...row,
    status: STATUSES.includes(row.status as RunStatus) ? (row.status as RunStatus) : "error",
    durationMs: row.durationMs === null ? null : Number(row.durationMs),
    messageIds,
    issuedAtMs: Number(row.issuedAtMs),
  };
}
