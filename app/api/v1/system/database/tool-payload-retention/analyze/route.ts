import { route } from "@/server/http/route";
import { analyzeBodySchema } from "@/lib/compaction/api";
import { analyzeCompaction } from "@/server/compaction/service";

export const POST = route({
  access: "admin",
  body: analyzeBodySchema,
  status: 202,
  handler: ({ rt, body }) => analyzeCompaction(rt, body),
});
