import { taskListQuerySchema } from "@/lib/conversation/api";
import { AppError } from "@/server/errors";
import { route } from "@/server/http/route";
import { listTasks } from "@/server/workspace/read/tasks";

// Read-only task list for the conversation view (any signed-in member).
export const GET = route({
  access: "member",
  handler: ({ rt, request }) => {
    const query = taskListQuerySchema.safeParse(Object.fromEntries(new URL(request.url).searchParams));
    if (!query.success) throw new AppError("invalid_request", "limit must be 1..200 and offset a non-negative integer");
    return listTasks(rt.stores.workspace, query.data);
  },
});
