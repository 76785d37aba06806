import { z } from "zod";
import { payloadRestoreBodySchema } from "@/lib/task-compaction/api";
import { dryRunPayloadRestore, readRestoreSummary, startPayloadRestore } from "@/server/compaction/restore/service";
import { route } from "@/server/http/route";
import { jsonResponse } from "@/server/http/json-response";

const params = z.strictObject({ id: z.string().min(1).max(200) });

// Members see what compaction removed from the task, which backups could
// bring it back and the latest restore; only admins run a dry run or a restore.
export const GET = route({
  access: "member",
  params,
  handler: ({ rt, params }) => readRestoreSummary(rt, params.id),
});

// dryRun: 200 with the report. Otherwise 202 with the operation id; the
// restore runs in the background (progress on the event stream).
export const POST = route({
  access: "admin",
  params,
  body: payloadRestoreBodySchema,
  handler: async ({ rt, params, body, user }) => {
    if (body.dryRun) return dryRunPayloadRestore(rt, params.id, body);
    const { operationId } = await startPayloadRestore(rt, { taskId: params.id, body, actor: user!.id });
    return jsonResponse({ operationId }, { status: 202 });
  },
});
