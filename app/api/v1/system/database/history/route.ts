import { historyQuerySchema } from "@/lib/database/history-api";
import { route } from "@/server/http/route";
import { readStorageHistory } from "@/server/maintenance/history/read";

export const dynamic = "force-dynamic";

// The storage history: sizes by table over time, what maintenance gave back,
// and the growth fit. Members read; sizes and fixed words only.
export const GET = route({
  access: "member",
  query: historyQuerySchema,
  unsupportedRead: () => ({ capability: "unsupported" }),
  handler: ({ rt, query }) => readStorageHistory({ store: rt.stores.history, clock: rt.clock, engine: rt.target.engine === "postgres" ? "postgres" : "sqlite", query }),
});
