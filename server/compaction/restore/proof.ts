// The proof before a per-task restore writes a row (issue 29, deliver 3): a
// message is restorable only when reducing the backup's row with the same
// rules and the marker's removed_at gives exactly the bytes stored now.
// Everything else is a reason not to touch the row:
// - not_in_backup: the backup has no row of that id, or its row carries no
//   payload (compacted before the backup was taken, or of another type);
// - changed_since_compaction: the backup's row does not reduce to what is
//   stored now, or its updated_at is not the one stored now (the row was
//   edited after compaction, or between the backup and the compaction), so
//   writing the backup's bytes would lose a change. updated_at catches the
//   edit the reduction cannot see: one that touched only fields compaction
//   removed (every message write bumps it; compaction never does).
// Bytes are compared as stored (a byte string stays a byte string).
import "server-only";
import type { RestoreMessageStatus } from "@/lib/task-compaction/api";
import { reduceToolPayload, type StoredEncoding } from "../reducer/reducer";
import type { Marker } from "./marker";

/** A row's stored metadata: null when the value is not text; else a string in `encoding`. */
export type StoredRow = { type: string; metadata: string | null; encoding: StoredEncoding; updatedAt: string | null };

export type Proof =
  | { status: "restorable"; next: string; encoding: StoredEncoding; bytes: number }
  | { status: Exclude<RestoreMessageStatus, "restorable" | "not_compacted"> };

export const storedBytes = (text: string, encoding: StoredEncoding): Buffer => Buffer.from(text, encoding === "bytes" ? "latin1" : "utf8");

export function proveRestore(options: { current: StoredRow; marker: Marker; backup: StoredRow | null }): Proof {
  const { current, marker, backup } = options;
  if (!backup || backup.metadata === null || backup.type !== current.type) return { status: "not_in_backup" };
  if (current.metadata === null) return { status: "changed_since_compaction" };
  const reduced = reduceToolPayload({ type: backup.type, metadata: backup.metadata, removedAt: marker.removedAt, encoding: backup.encoding });
  if (reduced.outcome === "skipped") {
    // A backup row compacted already holds no payload to bring back.
    return { status: reduced.reason === "already_removed" ? "not_in_backup" : "changed_since_compaction" };
  }
  if (backup.updatedAt !== current.updatedAt) return { status: "changed_since_compaction" };
  if (!storedBytes(reduced.metadata, backup.encoding).equals(storedBytes(current.metadata, current.encoding))) return { status: "changed_since_compaction" };
  return { status: "restorable", next: backup.metadata, encoding: backup.encoding, bytes: reduced.removedBytes };
}
