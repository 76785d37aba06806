import { emptyBodySchema } from "@/lib/database/api";
import { route } from "@/server/http/route";
import { vacuumDatabase } from "@/server/maintenance/vacuum";
import { createSqliteMaintenanceStore } from "@/server/maintenance/sqlite-store";

// Explicit compaction with before/after sizes; 503 maintenance_busy while
// another maintenance operation holds the guard.
export const POST = route({
  access: "admin",
  body: emptyBodySchema,
  handler: ({ rt }) => vacuumDatabase({ store: createSqliteMaintenanceStore(rt.handle), clock: rt.clock, guard: rt.guard, log: rt.log }),
});
