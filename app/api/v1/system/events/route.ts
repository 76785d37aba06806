import { route } from "@/server/http/route";
import { sseStream } from "@/server/events/sse";

export const dynamic = "force-dynamic";

export const GET = route({
  access: "member",
  handler: ({ request, rt }) =>
    new Response(sseStream({ bus: rt.bus, signal: request.signal, timers: rt.timers }), {
      headers: {
        "content-type": "text/event-stream; charset=utf-8",
        "cache-control": "no-store, no-transform",
        connection: "keep-alive",
        "x-accel-buffering": "no",
      },
    }),
});
