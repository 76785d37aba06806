import { route } from "@/server/http/route";
import { runBodySchema } from "@/lib/compaction/api";
import { runCompaction } from "@/server/compaction/service";

export const POST = route({
  access: "admin",
  body: runBodySchema,
  status: 202,
  handler: ({ rt, body, user }) => runCompaction(rt, body, user!.id),
});
