import { z } from "zod";
import { route } from "@/server/http/route";
import { getShellOutput } from "@/server/workspace/shell-output";

// 200 with the output, 404 for unknown or non-shell messages, 410
// tool_payload_removed once compaction removed the payload.
export const GET = route({
  access: "member",
  params: z.strictObject({ id: z.string().min(1) }),
  handler: ({ rt, params }) => getShellOutput(rt.stores.workspace, params.id),
});
