import { AppError } from "@/server/errors";
import { route } from "@/server/http/route";
import { sseStream } from "@/server/events/sse";
import { MAX_STREAMS_PER_SESSION, MAX_STREAMS_PER_USER } from "@/server/events/stream-registry";

export const dynamic = "force-dynamic";

export const GET = route({
  access: "member",
  // An open tab is not a user at work: the stream never restarts the idle timeout.
  touchesSession: false,
  handler: ({ request, rt, session, requestId }) => {
    const { id: sessionId, user } = session!;
    const opened = rt.streams.tryOpen({ sessionId, userId: user.id, role: user.role });
    if ("refused" in opened) {
      throw new AppError(
        "too_many_requests",
        opened.refused === "session"
          ? `At most ${MAX_STREAMS_PER_SESSION} event streams may be open per session`
          : `At most ${MAX_STREAMS_PER_USER} event streams may be open per user`,
      );
    }
    const body = sseStream({
      bus: rt.bus,
      signal: request.signal,
      timers: rt.timers,
      ended: opened.ended,
      onClose: opened.release,
      onSlowClient: (queuedBytes) => rt.log.warn({ requestId, event: "sse_slow_client", queuedBytes }, "event stream ended: the client is not reading"),
    });
    return new Response(body, {
      headers: {
        "content-type": "text/event-stream; charset=utf-8",
        "cache-control": "no-store, no-transform",
        connection: "keep-alive",
        "x-accel-buffering": "no",
      },
    });
  },
});
