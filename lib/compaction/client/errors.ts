// The one error shape the Messages compaction hooks hand to the card. The
// channel says where it came from: a status read or an administrator's action.
import { isApiError } from "@/lib/query/fetch-json";

export type CompactionAction = "save" | "analyze" | "run" | "cancel";

export type CompactionError = {
  channel: "status" | "action";
  action: CompactionAction | null;
  /** The API's error code, or network_error / unknown_error. */
  code: string;
  /** HTTP status; 0 for a network failure. */
  status: number;
  message: string;
  /** The parsed error body (a 409 may carry the server's revision). */
  body: unknown;
};

export function toCompactionError(options: { error: unknown; channel: CompactionError["channel"]; action?: CompactionAction }): CompactionError {
  const { error, channel, action = null } = options;
  if (isApiError(error)) {
    return { channel, action, code: error.code, status: error.status, message: error.message, body: error.body };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { channel, action, code: "unknown_error", status: 0, message, body: null };
}

export function isAbortError(error: unknown): boolean {
  return error instanceof DOMException && error.name === "AbortError";
}
