import { route } from "@/server/http/route";
import { cancelBodySchema } from "@/lib/compaction/api";
import { cancelCompaction } from "@/server/compaction/service";

export const POST = route({
  access: "admin",
  body: cancelBodySchema,
  handler: ({ rt, body, user }) => cancelCompaction(rt, body, user!.id),
});
