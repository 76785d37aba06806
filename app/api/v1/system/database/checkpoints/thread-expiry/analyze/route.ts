import { route } from "@/server/http/route";
import { expiryAnalyzeBody } from "@/lib/checkpoints/maintenance-api";
import { analyzeExpiry } from "@/server/checkpoints/schedule/service";

/** Counts what a period would expire now (threads, checkpoints, bytes); deletes nothing. */
export const POST = route({
  access: "admin",
  body: expiryAnalyzeBody,
  status: 202,
  handler: ({ rt, body }) => analyzeExpiry(rt, body.age),
});
