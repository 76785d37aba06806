import { logsQuerySchema, type LogsResponse } from "@/lib/logs/api";
import { AppError } from "@/server/errors";
import { route } from "@/server/http/route";
import type { LogRing } from "@/server/logs/ring";

export const dynamic = "force-dynamic";

// Recent log lines of this process for the Database page's log viewer:
// level, time, message and allowlisted id/count fields only. No answer on
// an unsupported engine: no session can be checked there, and the ring is data.
export const GET = route({
  access: "member",
  handler: ({ request, rt }) => readLogs(rt.logRing, new URL(request.url)),
});

function readLogs(ring: LogRing, url: URL): LogsResponse {
  const parsed = logsQuerySchema.safeParse(Object.fromEntries(url.searchParams));
  if (!parsed.success) throw new AppError("invalid_request", "level must be one of trace, debug, info, warn, error, fatal; limit 1..500");
  return { level: parsed.data.level, capacity: ring.capacity, entries: ring.list(parsed.data) };
}
