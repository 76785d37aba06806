// Which area of the storage chart a table belongs to. The names are the
// tables this product and its checkpointers create: LangGraph's SqliteSaver
// (`checkpoints`, `writes`), PostgresSaver (`checkpoint_blobs`,
// `checkpoint_writes`, `checkpoint_migrations`) and ours beside them
// (`checkpoint_runs`, `checkpoint_epochs`, the expiry tombstones). Everything
// else (accounts, audit, settings, the rest of the conversation tables) is
// "other".
import type { StorageArea } from "@/lib/database/history-api";

const CHECKPOINT_TABLES = new Set(["checkpoints", "writes", "expired_threads"]);

export function areaOf(table: string): StorageArea {
  if (table === "messages") return "messages";
  if (CHECKPOINT_TABLES.has(table) || table.startsWith("checkpoint_")) return "checkpoints";
  return "other";
}
