import { emptyBodySchema } from "@/lib/database/api";
import { auditedAsync } from "@/server/audit/record";
import { route } from "@/server/http/route";
import { vacuumDatabase } from "@/server/maintenance/vacuum";

// Explicit compaction with before/after sizes; 503 maintenance_busy while
// another maintenance operation holds the guard.
export const POST = route({
  access: "admin",
  body: emptyBodySchema,
  handler: ({ rt, user }) =>
    auditedAsync(rt, { actor: user!.id, kind: "database.vacuumed", detail: (result) => ({ freedBytes: result.freedBytes }) }, async () => {
      const result = await vacuumDatabase({ store: rt.stores.maintenance, clock: rt.clock, guard: rt.guard, log: rt.log });
      // The storage history's sample after it, once the guard is released (not awaited: the answer does not wait for it).
      void rt.storageHistory.recordAfter({ trigger: "vacuum", operationId: rt.ids(), reclaimedBytes: result.freedBytes });
      return result;
    }),
});
