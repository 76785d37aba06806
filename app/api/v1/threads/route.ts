import { threadTitlesQuery } from "@/lib/checkpoints/api";
import { AppError } from "@/server/errors";
import { route } from "@/server/http/route";
import { threadService } from "@/server/checkpoints/service";
import { createThread, readThreadTitles } from "@/server/checkpoints/threads";

export const POST = route({ access: "admin", handler: ({ rt }) => createThread(threadService(rt)) });

/** Thread titles for lists (`?ids=a,b`, at most 50): thread content, so members read it as they read a thread's state. */
export const GET = route({
  access: "member",
  handler: async ({ rt, request }) => {
    const parsed = threadTitlesQuery.safeParse(Object.fromEntries(new URL(request.url).searchParams));
    if (!parsed.success) throw new AppError("invalid_request", "ids must list 1..50 comma-separated thread ids");
    return { threads: await readThreadTitles(threadService(rt), parsed.data.ids) };
  },
});
