// The backup thread expiry relies on: the receipt of its current approval.
// Like compaction's (server/compaction/pinned-backup.ts), rotation keeps it
// and deleting it by hand needs the typed confirmation; the next pass then
// fails backup_missing and expiry stays off until it is prepared again.
import "server-only";
import { pinnedBackupNames } from "@/server/compaction/pinned-backup";
import type { Stores } from "@/server/stores";
import { expiryArmed } from "./expiry-policy";
import { readRecord } from "./records";
import type { CheckpointScheduleStore } from "./store";

export async function expiryPinnedBackupNames(store: CheckpointScheduleStore): Promise<string[]> {
  const read = await readRecord(store, "thread_expiry");
  if (read.state === "malformed" || !expiryArmed(read.record)) return [];
  const { preparation } = read.record.runtime;
  return preparation.choice === "backup" && preparation.receipt && "name" in preparation.receipt ? [preparation.receipt.name] : [];
}

/** Every backup a feature relies on right now (compaction's and thread expiry's receipts). */
export async function allPinnedBackupNames(stores: Pick<Stores, "compaction" | "schedule">): Promise<string[]> {
  return [...new Set([...(await pinnedBackupNames(stores.compaction)), ...(await expiryPinnedBackupNames(stores.schedule))])];
}
