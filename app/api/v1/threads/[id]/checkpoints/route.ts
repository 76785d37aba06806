import { route } from "@/server/http/route";
import { threadIdParams } from "@/lib/checkpoints/api";
import { readThreadCheckpoints } from "@/server/checkpoints/cleanup/thread-checkpoints";
import { assertThreadNotExpired } from "@/server/checkpoints/schedule/tombstone";

export const dynamic = "force-dynamic";

/** The thread's checkpoints by turn with their retention verdicts (members read). */
export const GET = route({
  access: "member",
  params: threadIdParams,
  handler: async ({ rt, params }) => {
    await assertThreadNotExpired(rt.stores.schedule, params.id);
    return readThreadCheckpoints({ store: rt.stores.checkpoints, threadId: params.id, handles: { ttlDays: rt.checkpoints.handleTtlDays, nowMs: rt.clock.now() } });
  },
});
