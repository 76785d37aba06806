import { route } from "@/server/http/route";
import { analyzeBodySchema } from "@/lib/compaction/api";
import { analyzeRetention } from "@/server/compaction/service";

export const POST = route({
  access: "admin",
  body: analyzeBodySchema,
  status: 202,
  handler: ({ rt, body }) => analyzeRetention(rt, body),
});
