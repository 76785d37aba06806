import { emptyBodySchema } from "@/lib/database/api";
import { auditedAsync } from "@/server/audit/record";
import { route } from "@/server/http/route";
import { listBackups, MANUAL_BACKUPS_KEPT } from "@/server/maintenance/backups/catalog";
import { createBackup } from "@/server/maintenance/backups/create";
import { allPinnedBackupNames } from "@/server/checkpoints/schedule/pinned-backup";

export const GET = route({
  access: "member",
  unsupportedRead: () => ({ capability: "unsupported", backups: [], keep: MANUAL_BACKUPS_KEPT }),
  handler: async ({ rt }) => {
    const pinned = new Set(await allPinnedBackupNames(rt.stores));
    const backups = await listBackups({ dbFile: rt.dbFile });
    return {
      capability: "supported",
      backups: backups.map((backup) => ({ ...backup, pinned: pinned.has(backup.name) })),
      keep: MANUAL_BACKUPS_KEPT,
    };
  },
});

// Synchronous: answers 201 with the receipt once the backup is published.
// No request signal is passed, so a client closing the connection cannot
// cancel an accepted backup half way.
export const POST = route({
  access: "admin",
  body: emptyBodySchema,
  status: 201,
  handler: ({ rt, user }) =>
    auditedAsync(rt, { actor: user!.id, kind: "backup.created", detail: (receipt) => ({ backupName: receipt.name }) }, async () =>
      createBackup({ store: rt.stores.maintenance, dbFile: rt.dbFile, clock: rt.clock, label: "manual", guard: rt.guard, log: rt.log, pinned: await allPinnedBackupNames(rt.stores) }),
    ),
});
