import { route } from "@/server/http/route";
import { eventBus } from "@/server/events/bus";
import { sseStream } from "@/server/events/sse";

export const dynamic = "force-dynamic";

export const GET = route({
  access: "member",
  handler: ({ request, rt }) =>
    new Response(sseStream({ bus: eventBus(), signal: request.signal, timers: rt.timers }), {
      headers: {
        "content-type": "text/event-stream; charset=utf-8",
        "cache-control": "no-cache, no-transform",
        connection: "keep-alive",
        "x-accel-buffering": "no",
      },
    }),
});
