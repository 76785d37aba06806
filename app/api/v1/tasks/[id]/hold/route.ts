import { z } from "zod";
import { putTaskHoldBodySchema } from "@/lib/task-compaction/api";
import { putTaskHold, readTaskHold } from "@/server/compaction/hold/hold";
import { route } from "@/server/http/route";

const params = z.strictObject({ id: z.string().min(1).max(200) });

// Members see whether a task is held; admins put it on hold or take it off.
export const GET = route({
  access: "member",
  params,
  handler: ({ rt, params }) => readTaskHold(rt, params.id),
});

export const PUT = route({
  access: "admin",
  params,
  body: putTaskHoldBodySchema,
  handler: ({ rt, params, body, user }) => putTaskHold(rt, { taskId: params.id, held: body.held, actor: user!.id }),
});
