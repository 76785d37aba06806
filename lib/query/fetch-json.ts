import type { z } from "zod";
import { isErrorCode, type ErrorCode } from "@/lib/api/error-codes";

/** A non-2xx API answer, carrying the server's error code and the parsed body. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: ErrorCode | "network_error" | "unknown_error";
  readonly body: unknown;
  readonly retryAfterSeconds: number | null;

  constructor(options: { status: number; code: ApiError["code"]; message: string; body: unknown; retryAfterSeconds: number | null }) {
    super(options.message);
    this.name = "ApiError";
    this.status = options.status;
    this.code = options.code;
    this.body = options.body;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}

export function isApiError(value: unknown): value is ApiError {
  return value instanceof ApiError;
}

function readError(status: number, body: unknown, retryAfter: string | null): ApiError {
  const error = (body as { error?: { code?: unknown; message?: unknown } } | null)?.error;
  const code = isErrorCode(error?.code) ? error.code : "unknown_error";
  const message = typeof error?.message === "string" ? error.message : `HTTP ${status}`;
  const seconds = retryAfter !== null && /^\d+$/.test(retryAfter) ? Number(retryAfter) : null;
  return new ApiError({ status, code, message, body, retryAfterSeconds: seconds });
}

/** Same-origin JSON request; rejects with ApiError on any non-2xx answer or network failure. */
export async function fetchJson<T>(path: string, init: { method?: string; body?: unknown; signal?: AbortSignal } = {}): Promise<T> {
  let response: Response;
  try {
    response = await fetch(path, {
      method: init.method ?? "GET",
      credentials: "same-origin",
      headers: init.body === undefined ? { accept: "application/json" } : { accept: "application/json", "content-type": "application/json" },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      signal: init.signal,
      cache: "no-store",
    });
  } catch (cause) {
    if (cause instanceof DOMException && cause.name === "AbortError") throw cause;
    throw new ApiError({ status: 0, code: "network_error", message: "Network error", body: null, retryAfterSeconds: null });
  }
  const text = await response.text();
  let body: unknown = null;
  if (text) {
    try {
      body = JSON.parse(text);
    } catch {
      body = null;
    }
  }
  if (!response.ok) throw readError(response.status, body, response.headers.get("retry-after"));
  return body as T;
}

/** fetchJson, then the documented shape: an answer that does not match rejects with ApiError unknown_error. */
export async function fetchParsed<S extends z.ZodType>(
  schema: S,
  path: string,
  init: { method?: string; body?: unknown; signal?: AbortSignal } = {},
): Promise<z.output<S>> {
  const body = await fetchJson<unknown>(path, init);
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    throw new ApiError({ status: 200, code: "unknown_error", message: "Unexpected answer from the server", body, retryAfterSeconds: null });
  }
  return parsed.data;
}
