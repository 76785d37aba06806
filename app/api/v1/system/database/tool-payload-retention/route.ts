import { route } from "@/server/http/route";
import { putPolicyBodySchema } from "@/lib/compaction/api";
import { getCompactionStatus, putCompactionPolicy } from "@/server/compaction/service";
import { unsupportedStatus } from "@/server/compaction/status";

export const dynamic = "force-dynamic";

export const GET = route({
  access: "member",
  unsupportedRead: unsupportedStatus,
  handler: ({ rt }) => getCompactionStatus(rt),
});

export const PUT = route({
  access: "admin",
  body: putPolicyBodySchema,
  handler: ({ rt, body, user }) => putCompactionPolicy(rt, body, user!.id),
});
