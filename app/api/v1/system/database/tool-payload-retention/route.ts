import { route } from "@/server/http/route";
import { putPolicyBodySchema } from "@/lib/compaction/api";
import { getRetentionStatus, putRetentionPolicy } from "@/server/compaction/service";
import { unsupportedStatus } from "@/server/compaction/status";

export const dynamic = "force-dynamic";

export const GET = route({
  access: "member",
  unsupportedRead: unsupportedStatus,
  handler: ({ rt }) => getRetentionStatus(rt),
});

export const PUT = route({
  access: "admin",
  body: putPolicyBodySchema,
  handler: ({ rt, body, user }) => putRetentionPolicy(rt, body, user!.id),
});
