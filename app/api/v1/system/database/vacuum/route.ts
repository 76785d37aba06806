import { emptyBodySchema } from "@/lib/database/api";
import { route } from "@/server/http/route";
import { vacuumDatabase } from "@/server/maintenance/vacuum";

// Explicit compaction with before/after sizes; 503 maintenance_busy while
// another maintenance operation holds the guard.
export const POST = route({
  access: "admin",
  body: emptyBodySchema,
  handler: ({ rt }) => vacuumDatabase({ store: rt.stores.maintenance, clock: rt.clock, guard: rt.guard, log: rt.log }),
});
