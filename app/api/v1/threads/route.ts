import { route } from "@/server/http/route";
import { threadService } from "@/server/checkpoints/service";
import { createThread } from "@/server/checkpoints/threads";

export const POST = route({ access: "admin", handler: ({ rt }) => createThread(threadService(rt)) });
