import { route } from "@/server/http/route";
import { cancelBodySchema } from "@/lib/compaction/api";
import { cancelRetention } from "@/server/compaction/service";

export const POST = route({
  access: "admin",
  body: cancelBodySchema,
  handler: ({ rt, body, user }) => cancelRetention(rt, body, user!.id),
});
