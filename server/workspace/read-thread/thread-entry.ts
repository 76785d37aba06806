// The read thread (bundled to dist/read-thread.cjs by npm run build): runs
// read tasks the main thread sends, each on a connection of its own, and
// streams each answer back in chunks within the credit the main thread
// grants. Reading a 32 MiB row, scanning it and encoding the answer all
// happen here, at a lower priority than the request thread; the main thread
// only hands finished bytes on.
import { createRequire } from "node:module";
import v8 from "node:v8";
import vm from "node:vm";
import { parentPort, workerData } from "node:worker_threads";
import { lowerThreadPriority } from "@/server/compaction/thread/background-priority";
import { openReadConnection, type Drivers } from "./connection";
import { CREDIT_WINDOW, type FromThread, type ReadThreadData, type ToThread } from "./protocol";
import { runReadTask } from "./run-task";

const port = parentPort!;
const data = workerData as ReadThreadData;
const load = createRequire(`${data.root}/package.json`);
const drivers: Drivers = { sqlite: () => load("better-sqlite3"), pg: () => load("pg") };

type State = { credits: number; cancelled: boolean; wake: (() => void) | null };

/**
 * A full collection after every answer. A 32 MiB row leaves
 * about twice its size of garbage (the row read as a string, its encoded
 * pieces), and V8 lets a worker's old generation grow far past that before
 * it collects: 15-20 reads took the process from about 230 MiB to a peak
 * of 919-1,223 MiB. A heap cap is no answer: a worker that reaches it can
 * abort the whole process (nodejs/node#47224), not only itself.
 */
const collect = ((): (() => void) => {
  if (process.env.READ_THREAD_IDLE_GC === "0") return () => {};
  try {
    v8.setFlagsFromString("--expose-gc");
    return vm.runInNewContext("gc") as () => void;
  } catch {
    return () => {};
  }
})();
const tasks = new Map<number, State>();

function post(message: FromThread, transfer?: ArrayBuffer[]): void {
  port.postMessage(message, transfer);
}

async function run(message: Extract<ToThread, { type: "run" }>): Promise<void> {
  const { id } = message;
  const state: State = { credits: CREDIT_WINDOW, cancelled: false, wake: null };
  tasks.set(id, state);
  const encoder = new TextEncoder();
  let connection: Awaited<ReturnType<typeof openReadConnection>> | null = null;
  try {
    connection = await openReadConnection(message.source, drivers);
    await runReadTask(connection, message.task, {
      head: (headers) => post({ type: "head", id, headers }),
      chunk: async (text) => {
        while (state.credits === 0 && !state.cancelled) await new Promise<void>((resolve) => (state.wake = resolve));
        if (state.cancelled) return;
        state.credits -= 1;
        const bytes = encoder.encode(text);
        post({ type: "chunk", id, bytes }, [bytes.buffer as ArrayBuffer]);
      },
      end: () => post({ type: "end", id }),
      fail: (code, text, extra) => post({ type: "fail", id, code, message: text, extra }),
      cancelled: () => state.cancelled,
    });
  } catch (error) {
    post({ type: "fail", id, code: "internal_error", message: (error as Error)?.name ?? "error" });
  } finally {
    tasks.delete(id);
    await connection?.close().catch(() => {});
    // On this thread, off the request thread; an answer still in flight here waits that long.
    collect();
  }
}

// Below the request thread (ten nice steps, Linux): scanning a 32 MiB row or
// summarizing a conversation yields the cores to the event loop when both
// are busy, and still gets them whole on an idle machine.
post({ type: "started", nice: lowerThreadPriority() });

port.on("message", (message: ToThread) => {
  if (message.type === "run") {
    void run(message);
    return;
  }
  const state = tasks.get(message.id);
  if (!state) return;
  if (message.type === "credit") state.credits += 1;
  else state.cancelled = true;
  const wake = state.wake;
  state.wake = null;
  wake?.();
});
