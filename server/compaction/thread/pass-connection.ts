// The cleanup pass's own SQLite connection (the slice thread's; the
// benchmark opens the same). The pass reads each page about once, so the
// driver's 16 MiB page cache buys nothing, and its thousands of page-sized
// allocations fragment the heap that a 30 MB row's transient buffers then
// have to grow past: on the compaction benchmark's base, the pass peaked at
// 262-265 MiB with 2 MiB against 277-283 MiB with 16 MiB, and was no slower
// (4.3-4.4 s of work against 4.5-5.0 s). Its WAL checkpoints can run on a
// thread of their own (checkpointer.ts): the pass goes on with its next
// batch while the last one is copied into the database file.
import "server-only";
import { openDatabase, type DbHandle } from "@/server/db/client";
import { wrapSqliteDb } from "@/server/db/sqlite-db";
import type { CompactionStore } from "../store";
import type { HugeRowOptions } from "../store/collect-garbage";
import { createSqliteCompactionStore } from "../store/sqlite-store";
import type { Logger } from "@/server/log";
import { startCheckpointer, type Checkpointer } from "./checkpointer";

export const PASS_CACHE_KIB = 2048;

/** The pass's own store on that connection: its thread's heap is small, so a huge row is judged or read after a collection. */
export const PASS_STORE_OPTIONS: HugeRowOptions = { collectBeforeHugeRows: true };

/**
 * With checkpoints on their own thread, the pass's connection checkpoints
 * by itself only past this many WAL pages (16 MiB): the bound if that thread
 * ever falls behind. SQLite's default (1000) comes back if it fails.
 */
export const PASS_AUTOCHECKPOINT_PAGES = 4000;
const SQLITE_AUTOCHECKPOINT_PAGES = 1000;

export type PassStoreOptions = {
  /** Run the WAL checkpoints after the pass's commits on their own thread; `root` is the app root (where the driver resolves). */
  checkpointThread?: { root: string };
  /** Told once when that thread could not start or failed (the pass then checkpoints inline). Ids and counts only. */
  log?: Pick<Logger, "warn">;
};

export type PassStore = {
  handle: DbHandle;
  store: CompactionStore;
  /** Where the pass's checkpoints run now. */
  checkpoints(): "thread" | "inline";
  /** Waits for the checkpoints of what was committed, then closes the connection. */
  close(): Promise<void>;
};

export function openPassConnection(file: string): DbHandle {
  return openDatabase({ file, migrate: false, cacheKiB: PASS_CACHE_KIB });
}

/** The pass's store and connection with SQLite's own checkpoints. */
function inlinePassStore(handle: DbHandle, store: CompactionStore): PassStore {
  return { handle, store, checkpoints: () => "inline", close: async () => void (handle.sqlite.open && handle.sqlite.close()) };
}

/** The connection and the store the pass runs on. */
export function openPassStore(file: string, options: PassStoreOptions = {}): PassStore {
  const handle = openPassConnection(file);
  // One connection, read and written only by the pass: no read connection.
  const store = createSqliteCompactionStore(wrapSqliteDb(handle, { reader: false }), PASS_STORE_OPTIONS);
  if (!options.checkpointThread) return inlinePassStore(handle, store);
  let checkpointer: Checkpointer;
  try {
    checkpointer = startCheckpointer({ file, root: options.checkpointThread.root });
  } catch (error) {
    options.log?.warn({ code: (error as { code?: unknown })?.code ?? null }, "checkpoint thread unavailable: the pass checkpoints inline");
    return inlinePassStore(handle, store);
  }
  handle.sqlite.pragma(`wal_autocheckpoint = ${PASS_AUTOCHECKPOINT_PAGES}`);
  let inline = false;
  // After each commit, the thread's turn; once it has failed, SQLite's own checkpoints again.
  const afterCommit = () => {
    if (inline) return;
    if (!checkpointer.failed()) {
      checkpointer.request();
      return;
    }
    inline = true;
    options.log?.warn({}, "checkpoint thread failed: the pass checkpoints inline");
    handle.sqlite.pragma(`wal_autocheckpoint = ${SQLITE_AUTOCHECKPOINT_PAGES}`);
    // What the thread left behind is copied now.
    handle.sqlite.pragma("wal_checkpoint(PASSIVE)");
  };
  return {
    handle,
    store: {
      ...store,
      writeTransaction: async (fn, transactionOptions) => {
        const result = await store.writeTransaction(fn, transactionOptions);
        afterCommit();
        return result;
      },
    },
    checkpoints: () => (inline ? "inline" : "thread"),
    close: async () => {
      try {
        await checkpointer.stop();
      } finally {
        if (handle.sqlite.open) handle.sqlite.close();
      }
    },
  };
}
