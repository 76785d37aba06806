// The main thread's side of the read threads: a small fixed pool, started
// on first use and kept (unref'd), a bound on answers in progress (each
// holds one row in memory on its thread) and on those waiting, and each
// answer as a ReadableStream whose pull grants the thread one more chunk.
// Without the bundle (tests, a dev server before `npm run build`) the same
// task runs on this thread, its answer still streamed, and the log says so once.
import "server-only";
import { createRequire } from "node:module";
import path from "node:path";
import { Worker } from "node:worker_threads";
import { isErrorCode } from "@/lib/api/error-codes";
import { AppError } from "@/server/errors";
import type { Logger } from "@/server/log";
import { openReadConnection, type Drivers } from "./connection";
import { CREDIT_WINDOW, type FromThread, type ReadSource, type ReadTask, type ToThread } from "./protocol";
import { runReadTask, type ReadSink } from "./run-task";

export const READ_THREADS = 2;
/** Answers being read at once, per process: each may hold a 32 MiB row. */
export const MAX_ACTIVE_READS = 4;
/** Answers waiting for a place; past that a request gets 429. */
export const MAX_WAITING_READS = 64;

export type ReadThreads = {
  /** The answer to one task: its status and headers are final when this resolves. */
  answer(source: ReadSource, task: ReadTask, signal?: AbortSignal): Promise<Response>;
  /** Tasks run on threads / inline so far, threads started, answers in progress (tests, the benchmark). */
  stats(): { onThread: number; inline: number; threadsStarted: number; active: number; waiting: number; threadNice: (number | null)[] };
  stop(): Promise<void>;
};

type Receiver = {
  onHead(headers: Record<string, string>): void;
  onChunk(bytes: Uint8Array): void;
  onEnd(): void;
  onFail(code: string, message: string, extra?: Record<string, unknown>): void;
};

class ThreadSlot {
  worker: Worker | null = null;
  private readonly answers = new Map<number, Receiver>();

  get(id: number): Receiver | undefined {
    return this.answers.get(id);
  }

  /** An answer in flight keeps the process alive until it ends. */
  add(id: number, receiver: Receiver): void {
    this.answers.set(id, receiver);
    this.worker?.ref();
  }

  /** An idle thread never keeps the process alive (a CLI exits when its work is done). */
  remove(id: number): void {
    this.answers.delete(id);
    if (this.answers.size === 0) this.worker?.unref();
  }

  /** Every answer in flight, removed (the thread was lost). */
  takeAll(): Receiver[] {
    const all = [...this.answers.values()];
    this.answers.clear();
    return all;
  }
}

/** An answer being received: resolves its Response on head, fails before it, streams chunks after it. */
function receive(options: { credit: () => void; cancel: () => void; done: () => void; signal?: AbortSignal }) {
  let resolveHead!: (response: Response) => void;
  let rejectHead!: (error: unknown) => void;
  const head = new Promise<Response>((resolve, reject) => {
    resolveHead = resolve;
    rejectHead = reject;
  });
  const queued: Uint8Array[] = [];
  let ended = false;
  let failed: Error | null = null;
  let waiting: (() => void) | null = null;
  let finished = false;
  const finish = () => {
    if (finished) return;
    finished = true;
    options.done();
  };
  const wake = () => {
    const w = waiting;
    waiting = null;
    w?.();
  };
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        while (queued.length === 0 && !ended && !failed) await new Promise<void>((resolve) => (waiting = resolve));
        if (queued.length > 0) {
          controller.enqueue(queued.shift()!);
          options.credit();
          return;
        }
        if (failed) controller.error(failed);
        else controller.close();
        finish();
      },
      cancel() {
        options.cancel();
        finish();
      },
    },
    { highWaterMark: 0 },
  );
  options.signal?.addEventListener("abort", () => {
    options.cancel();
    failed ??= new Error("aborted");
    wake();
    finish();
  }, { once: true });
  const receiver: Receiver = {
    onHead: (headers) => resolveHead(new Response(body, { status: 200, headers })),
    onChunk: (bytes) => {
      queued.push(bytes);
      wake();
    },
    onEnd: () => {
      ended = true;
      wake();
    },
    onFail: (code, message, extra) => {
      const error = isErrorCode(code) && code !== "internal_error" ? new AppError(code, message, extra) : new Error(`read task failed (${message})`);
      failed = error;
      rejectHead(error);
      wake();
      finish();
    },
  };
  return { head, receiver };
}

export function createReadThreads(options: { bundlePath: string | null; log: Logger; root?: string; threads?: number; maxActive?: number; maxWaiting?: number }): ReadThreads {
  const root = options.root ?? process.cwd();
  const maxActive = options.maxActive ?? MAX_ACTIVE_READS;
  const maxWaiting = options.maxWaiting ?? MAX_WAITING_READS;
  const slots = Array.from({ length: options.threads ?? READ_THREADS }, () => new ThreadSlot());
  const counts = { onThread: 0, inline: 0, threadsStarted: 0 };
  const threadNice: (number | null)[] = [];
  let active = 0;
  const waiting: (() => void)[] = [];
  let nextId = 1;
  let turn = 0;
  let inlineLogged = false;
  const inlineRunning = new Set<{ cancel: () => void; finished: Promise<void> }>();
  let stopped = false;

  const load = createRequire(path.join(root, "package.json"));
  const drivers: Drivers = { sqlite: () => load("better-sqlite3"), pg: () => load("pg") };

  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else active -= 1;
  };

  const startWorker = (slot: ThreadSlot): Worker => {
    const worker = new Worker(path.resolve(options.bundlePath!), { workerData: { root } });
    counts.threadsStarted += 1;
    worker.on("message", (message: FromThread) => {
      if (message.type === "started") {
        threadNice.push(message.nice);
        return;
      }
      const receiver = slot.get(message.id);
      if (!receiver) return;
      if (message.type === "head") receiver.onHead(message.headers);
      else if (message.type === "chunk") receiver.onChunk(message.bytes);
      else if (message.type === "end") {
        slot.remove(message.id);
        receiver.onEnd();
      } else {
        slot.remove(message.id);
        receiver.onFail(message.code, message.message, message.extra);
      }
    });
    const lost = () => {
      if (slot.worker !== worker) return;
      slot.worker = null;
      for (const receiver of slot.takeAll()) receiver.onFail("internal_error", "thread_exit");
    };
    worker.on("error", (error) => {
      options.log.error({ event: "read_thread_failed", err: { name: error.name } }, "read thread failed");
      lost();
    });
    worker.on("exit", lost);
    // After the listeners (on Node 20 a "message" listener refs the worker
    // again): idle until an answer is added.
    worker.unref();
    return worker;
  };

  const onThread = (source: ReadSource, task: ReadTask, signal: AbortSignal | undefined, done: () => void): Promise<Response> => {
    const slot = slots[turn++ % slots.length]!;
    slot.worker ??= startWorker(slot);
    const worker = slot.worker;
    const id = nextId++;
    const send = (message: ToThread) => worker.postMessage(message);
    const { head, receiver } = receive({
      credit: () => send({ type: "credit", id }),
      cancel: () => {
        slot.remove(id);
        send({ type: "cancel", id });
      },
      done,
      signal,
    });
    slot.add(id, receiver);
    counts.onThread += 1;
    send({ type: "run", id, source, task });
    return head;
  };

  const inline = (source: ReadSource, task: ReadTask, signal: AbortSignal | undefined, done: () => void): Promise<Response> => {
    if (!inlineLogged) options.log.info({ event: "read_thread_inline" }, "shell output, export and the conversation view run on the server's thread: no read thread bundle (npm run build writes it)");
    inlineLogged = true;
    counts.inline += 1;
    let credits = CREDIT_WINDOW;
    let cancelled = false;
    let wake: (() => void) | null = null;
    const kick = () => {
      const w = wake;
      wake = null;
      w?.();
    };
    const { head, receiver } = receive({
      credit: () => {
        credits += 1;
        kick();
      },
      cancel: () => {
        cancelled = true;
        kick();
      },
      done,
      signal,
    });
    const encoder = new TextEncoder();
    const sink: ReadSink = {
      head: (headers) => receiver.onHead(headers),
      chunk: async (text) => {
        // Each piece on its own turn of the event loop: other requests run between them.
        await new Promise<void>((resolve) => setImmediate(resolve));
        while (credits === 0 && !cancelled) await new Promise<void>((resolve) => (wake = resolve));
        if (cancelled) return;
        credits -= 1;
        receiver.onChunk(encoder.encode(text));
      },
      end: () => receiver.onEnd(),
      fail: (code, message, extra) => receiver.onFail(code, message, extra),
      cancelled: () => cancelled,
    };
    const cancel = () => {
      cancelled = true;
      kick();
    };
    const finished = (async () => {
      let connection: Awaited<ReturnType<typeof openReadConnection>> | null = null;
      try {
        connection = await openReadConnection(source, drivers);
        await runReadTask(connection, task, sink);
      } catch (error) {
        sink.fail("internal_error", (error as Error)?.name ?? "error");
      } finally {
        await connection?.close().catch(() => {});
      }
    })();
    // Stopping fails the answer (a cut body must not read as complete) and ends the task at its next chunk.
    const running = {
      cancel: () => {
        cancel();
        receiver.onFail("internal_error", "server_stopping");
      },
      finished,
    };
    inlineRunning.add(running);
    void finished.finally(() => inlineRunning.delete(running));
    return head;
  };

  return {
    async answer(source, task, signal) {
      if (stopped) throw new AppError("unsupported_engine", "The server is stopping");
      if (active >= maxActive) {
        if (waiting.length >= maxWaiting) throw new AppError("too_many_requests", "Too many large reads at once; try again shortly", { retryAfterSeconds: 1 });
        await new Promise<void>((resolve) => waiting.push(resolve));
      } else {
        active += 1;
      }
      let released = false;
      const done = () => {
        if (released) return;
        released = true;
        release();
      };
      try {
        return await (options.bundlePath ? onThread : inline)(source, task, signal, done);
      } catch (error) {
        done();
        throw error;
      }
    },
    stats: () => ({ ...counts, active, waiting: waiting.length, threadNice: [...threadNice] }),
    async stop() {
      stopped = true;
      // An inline answer nobody reads to its end would keep its connection open past the runtime's stop.
      const inlineTasks = [...inlineRunning];
      for (const task of inlineTasks) task.cancel();
      await Promise.all([...slots.flatMap((slot) => (slot.worker ? [slot.worker.terminate()] : [])), ...inlineTasks.map((task) => task.finished)]);
    },
  };
}
