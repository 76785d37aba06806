import { route } from "@/server/http/route";
import { threadIdParams } from "@/lib/checkpoints/api";
import { readThreadCheckpoints } from "@/server/checkpoints/cleanup/thread-checkpoints";

export const dynamic = "force-dynamic";

/** The thread's checkpoints by turn with their retention verdicts (members read). */
export const GET = route({
  access: "member",
  params: threadIdParams,
  handler: ({ rt, params }) => readThreadCheckpoints({ store: rt.stores.checkpoints, threadId: params.id }),
});
