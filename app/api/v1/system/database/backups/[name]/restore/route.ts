import { backupNameParamsSchema, restoreBodySchema } from "@/lib/database/api";
import { auditedAsync } from "@/server/audit/record";
import { route } from "@/server/http/route";
import { restoreBackup } from "@/server/maintenance/backups/restore";
import { closeDatabase } from "@/server/runtime";

// Restore with a typed confirmation (the exact backup name). The answer says
// restartRequired: true — the server must be restarted afterwards.
export const POST = route({
  access: "admin",
  params: backupNameParamsSchema,
  body: restoreBodySchema,
  // The entry lands in the restored database (the runtime reopens its stores first).
  handler: ({ rt, params, body, user }) =>
    auditedAsync(rt, { actor: user!.id, kind: "backup.restored", detail: { backupName: params.name } }, async () => {
      const result = await restoreBackup({
        store: rt.stores.maintenance,
        dbFile: rt.dbFile,
        name: params.name,
        confirm: body.confirm,
        guard: rt.guard,
        quiescers: rt.quiescers,
        closeDatabase: () => closeDatabase(rt),
        log: rt.log,
      });
      // The storage history (carried over by the restore) gets the restored database's sample.
      void rt.storageHistory.recordAfter({ trigger: "restore", operationId: rt.ids() });
      return result;
    }),
});
