// Browser fetchers for scheduled checkpoint maintenance (automatic cleanup,
// thread expiry). They pass the abort signal through and reject with
// ApiError (typed codes) on any failure, including an answer that does not
// match the documented shape.
import { fetchParsed } from "@/lib/query/fetch-json";
import {
  cleanupScheduleStatusSchema,
  expiryStatusSchema,
  maintenanceAccepted,
  type CleanupScheduleStatus,
  type ExpiryAge,
  type ExpiryStatus,
  type MaintenanceAccepted,
  type PutExpiryBody,
} from "@/lib/checkpoints/maintenance-api";
import { CHECKPOINTS_URL } from "./fetchers";

export const SCHEDULE_URL = `${CHECKPOINTS_URL}/schedule`;
export const EXPIRY_URL = `${CHECKPOINTS_URL}/thread-expiry`;

export function fetchCleanupSchedule(signal?: AbortSignal): Promise<CleanupScheduleStatus> {
  return fetchParsed(cleanupScheduleStatusSchema, SCHEDULE_URL, { signal });
}

export function saveCleanupSchedule(body: { enabled: boolean; expectedRevision: number }, signal?: AbortSignal): Promise<CleanupScheduleStatus> {
  return fetchParsed(cleanupScheduleStatusSchema, SCHEDULE_URL, { method: "PUT", body: { policy: { enabled: body.enabled }, expectedRevision: body.expectedRevision }, signal });
}

export function fetchThreadExpiry(signal?: AbortSignal): Promise<ExpiryStatus> {
  return fetchParsed(expiryStatusSchema, EXPIRY_URL, { signal });
}

export function saveThreadExpiry(body: PutExpiryBody, signal?: AbortSignal): Promise<ExpiryStatus> {
  return fetchParsed(expiryStatusSchema, EXPIRY_URL, { method: "PUT", body, signal });
}

export function analyzeThreadExpiry(age: ExpiryAge, signal?: AbortSignal): Promise<MaintenanceAccepted> {
  return fetchParsed(maintenanceAccepted, `${EXPIRY_URL}/analyze`, { method: "POST", body: { age }, signal });
}

export function runThreadExpiry(body: { expectedRevision: number; outsideWindow?: boolean }, signal?: AbortSignal): Promise<MaintenanceAccepted> {
  return fetchParsed(maintenanceAccepted, `${EXPIRY_URL}/run`, { method: "POST", body, signal });
}

export function cancelThreadExpiry(operationId: string, signal?: AbortSignal): Promise<ExpiryStatus> {
  return fetchParsed(expiryStatusSchema, `${EXPIRY_URL}/cancel`, { method: "POST", body: { operationId }, signal });
}
