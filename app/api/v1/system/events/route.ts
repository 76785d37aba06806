import { hashSessionToken, readSessionCookie } from "@/server/auth/current-user";
import { AppError } from "@/server/errors";
import { route } from "@/server/http/route";
import { sseStream } from "@/server/events/sse";
import { MAX_STREAMS_PER_SESSION } from "@/server/events/stream-slots";

export const dynamic = "force-dynamic";

export const GET = route({
  access: "member",
  handler: ({ request, rt }) => {
    // The wrapper has resolved the session from this cookie; its hash keys the slots.
    const sessionKey = hashSessionToken(readSessionCookie(request.headers.get("cookie")) ?? "");
    const release = rt.streamSlots.tryAcquire(sessionKey);
    if (!release) {
      throw new AppError("too_many_requests", `At most ${MAX_STREAMS_PER_SESSION} event streams may be open per session`);
    }
    return new Response(sseStream({ bus: rt.bus, signal: request.signal, timers: rt.timers, onClose: release }), {
      headers: {
        "content-type": "text/event-stream; charset=utf-8",
        "cache-control": "no-store, no-transform",
        connection: "keep-alive",
        "x-accel-buffering": "no",
      },
    });
  },
});
