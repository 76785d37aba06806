import { route } from "@/server/http/route";
import { putCleanupScheduleBody } from "@/lib/checkpoints/maintenance-api";
import { getCleanupScheduleStatus, putCleanupSchedule } from "@/server/checkpoints/schedule/service";
import { unsupportedCleanupSchedule } from "@/server/checkpoints/schedule/unsupported";

export const dynamic = "force-dynamic";

/** Automatic checkpoint cleanup: the policy, the next run, the latest run (members read). */
export const GET = route({
  access: "member",
  unsupportedRead: unsupportedCleanupSchedule,
  handler: ({ rt }) => getCleanupScheduleStatus(rt),
});

/** Turns the daily cleanup on or off (admins; compare-and-set on expectedRevision). */
export const PUT = route({
  access: "admin",
  body: putCleanupScheduleBody,
  handler: ({ rt, body, user }) => putCleanupSchedule(rt, body, user!.id),
});
