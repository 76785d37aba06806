"use client";
import { postRestore } from "./fetchers";
import { useBackupAction } from "./use-backup-action";

/** Restore needs the typed confirmation; the server checks it equals the name. */
export function useRestoreBackup() {
  return useBackupAction((vars: { name: string; confirm: string }) => postRestore(vars));
}
