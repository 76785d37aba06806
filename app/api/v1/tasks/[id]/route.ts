import { z } from "zod";
import { route } from "@/server/http/route";
import { readTaskConversation } from "@/server/workspace/read/tasks";

// One task with its messages (text and tool summaries; outputs load lazily).
export const GET = route({
  access: "member",
  params: z.strictObject({ id: z.string().min(1).max(200) }),
  handler: ({ rt, params }) => readTaskConversation(rt.stores.workspace, params.id),
});
