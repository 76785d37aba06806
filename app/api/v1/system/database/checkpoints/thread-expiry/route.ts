import { route } from "@/server/http/route";
import { putExpiryBody } from "@/lib/checkpoints/maintenance-api";
import { getExpiryStatus, putExpiryPolicy } from "@/server/checkpoints/schedule/service";
import { unsupportedExpiry } from "@/server/checkpoints/schedule/unsupported";

export const dynamic = "force-dynamic";

/** Thread expiry: policy, preparation, analysis, runs, expired threads (members read). */
export const GET = route({
  access: "member",
  unsupportedRead: unsupportedExpiry,
  handler: ({ rt }) => getExpiryStatus(rt),
});

/** Saves the policy; first enable and a shorter period need `preparation` (backup or skip). */
export const PUT = route({
  access: "admin",
  body: putExpiryBody,
  handler: ({ rt, body, user }) => putExpiryPolicy(rt, body, user!.id),
});
