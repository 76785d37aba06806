// Messages between the main thread and a read thread. A task answers with
// `head` (or `fail`), then `chunk`s of the response body and `end`; the
// main thread grants `credit` for each chunk it hands on, so at most
// CREDIT_WINDOW chunks of one answer are in flight: memory per answer is
// bounded by the row being read, not by a client that reads slowly.
export type ReadSource = { engine: "sqlite"; file: string } | { engine: "postgres"; url: string };

export type ReadTask = { kind: "shell-output"; messageId: string } | { kind: "export"; taskId: string } | { kind: "conversation"; taskId: string };

export type ToThread =
  | { type: "run"; id: number; source: ReadSource; task: ReadTask }
  | { type: "credit"; id: number }
  | { type: "cancel"; id: number };

export type FromThread =
  /** Sent once at start: the nice value the thread runs at (null where it was left alone). */
  | { type: "started"; nice: number | null }
  | { type: "head"; id: number; headers: Record<string, string> }
  | { type: "chunk"; id: number; bytes: Uint8Array }
  | { type: "end"; id: number }
  /** A typed refusal (AppError code, message, extra) or an unexpected failure (code internal_error, name only). */
  | { type: "fail"; id: number; code: string; message: string; extra?: Record<string, unknown> };

export const CREDIT_WINDOW = 4;

/** The thread's data: where it resolves the drivers from. */
export type ReadThreadData = { root: string };
