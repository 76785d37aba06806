import { route } from "@/server/http/route";
import { runRequest, threadIdParams } from "@/lib/checkpoints/api";
import { liveThreadService } from "@/server/checkpoints/service";
import { startRun } from "@/server/checkpoints/runs";
import { readRunHistoryView } from "@/server/checkpoints/cleanup/run-history";

/** Runs the agent on the thread and waits for the run to finish. */
export const POST = route({
  access: "admin",
  params: threadIdParams,
  body: runRequest,
  handler: async ({ rt, params, body }) =>
    startRun(await liveThreadService(rt, params.id), { threadId: params.id, content: body.input.content, checkpointId: body.checkpointId }),
});

/** Run durations and message ids from the run-history cache (members read). */
export const GET = route({
  access: "member",
  params: threadIdParams,
  handler: async ({ rt, params }) => {
    const deps = await liveThreadService(rt, params.id);
    return readRunHistoryView({ accessor: deps.accessor, threadId: params.id, cache: rt.checkpoints.runHistory, store: deps.store });
  },
});
