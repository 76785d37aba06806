// The attack: an event stream opened while signed in kept receiving events
// after logout, expiry, a disable or a restore, because nothing re-checked
// it. Now every stream ends with its session: at once for changes made in
// this process, and at the next re-check (well inside a second) for changes
// another process made to the database. Time is moved by hand: no sleeps.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { POST as logoutPost } from "@/app/api/v1/auth/logout/route";
import { GET as meGet } from "@/app/api/v1/auth/me/route";
import { GET as eventsGet } from "@/app/api/v1/system/events/route";
import { POST as disablePost } from "@/app/api/v1/users/[id]/disable/route";
import { PUT as rolePut } from "@/app/api/v1/users/[id]/role/route";
import { DELETE as sessionDelete } from "@/app/api/v1/users/[id]/sessions/[sessionId]/route";
import type { SystemEvent } from "@/lib/events/api";
import { SESSION_COOKIE } from "@/server/auth/current-user";
import { createSqliteAuthStore } from "@/server/auth/sqlite-store";
import { disableUser } from "@/server/auth/accounts";
import { createSession } from "@/server/auth/sessions";
import { createUser } from "@/server/auth/users";
import { openSqliteDb } from "@/server/db/sqlite-db";
import { TEST_POSTGRES_URL } from "@/server/db/pg/test-db";
import { apiRequest } from "@/server/http/route-test-support";
import { manualTime, type ManualTime } from "@/server/manual-time-test-support";
import { createEngineTestRuntime, type EngineTestRuntime } from "@/server/runtime-test-support";
import { MAX_STREAMS_PER_SESSION, MAX_STREAMS_PER_USER, STREAM_RECHECK_MS } from "./stream-registry";

const MIN = 60_000;
const event: SystemEvent = { type: "messages_changed", operationId: "op-1", messageIds: ["m1"] };

type Opened = { status: number; reader: ReadableStreamDefaultReader<Uint8Array> | null; abort: AbortController };

// A read left waiting by drainNow is kept for the next call: a second read would skip its chunk.
const waiting = new WeakMap<ReadableStreamDefaultReader<Uint8Array>, Promise<ReadableStreamReadResult<Uint8Array>>>();

/** What the body holds right now: text already queued and whether it has ended (one macrotask, never a timer). */
async function drainNow(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<{ text: string; done: boolean }> {
  let text = "";
  for (;;) {
    const read = waiting.get(reader) ?? reader.read();
    waiting.set(reader, read);
    const next = await Promise.race([read, new Promise<"pending">((resolve) => setImmediate(() => resolve("pending")))]);
    if (next === "pending") return { text, done: false };
    waiting.delete(reader);
    if (next.done) return { text, done: true };
    text += new TextDecoder().decode(next.value);
  }
}

for (const { engine, skip } of [
  { engine: "sqlite" as const, skip: false },
  { engine: "postgres" as const, skip: !TEST_POSTGRES_URL },
]) {
  describe.skipIf(skip)(`event streams end with their session [${engine}]`, () => {
    let rt: EngineTestRuntime;
    let time: ManualTime;
    const opened: Opened[] = [];

    beforeEach(async () => {
      time = manualTime(Date.parse("2026-03-01T10:00:00Z"));
      rt = await createEngineTestRuntime(engine, { prefix: "stream-revocation-", install: true, clock: time.clock, timers: time.timers, env: { SESSION_IDLE_MINUTES: "30" } });
    });
    afterEach(async () => {
      for (const stream of opened.splice(0)) stream.abort.abort();
      await rt.dispose();
    });

    async function user(email: string, role: "admin" | "viewer") {
      const { id } = await createUser(rt.stores.auth, { email, role, password: "long-enough-password", nowMs: time.clock.now() });
      return { id, cookie: await cookieOf(id) };
    }
    async function cookieOf(userId: string) {
      return `${SESSION_COOKIE}=${(await createSession(rt.stores.auth, { userId, nowMs: time.clock.now() })).token}`;
    }
    async function open(cookie: string): Promise<Opened> {
      const abort = new AbortController();
      const res = await eventsGet(new Request("http://localhost:3000/api/v1/system/events", { headers: { cookie }, signal: abort.signal }));
      const stream: Opened = { status: res.status, reader: res.status === 200 ? res.body!.getReader() : null, abort };
      opened.push(stream);
      if (stream.reader) expect((await drainNow(stream.reader)).text).toContain(": connected");
      return stream;
    }
    const me = async (cookie: string) => (await meGet(apiRequest("GET", "/", cookie as never))).status;

    it("[#26 acceptance] a disabled user's open stream closes at once and their cookie answers 401", async () => {
      const admin = await user("boss@example.com", "admin");
      const victim = await user("victim@example.com", "viewer");
      const watcher = await open(admin.cookie);
      const streams = [await open(victim.cookie), await open(victim.cookie)];
      rt.bus.publish(event);
      expect((await drainNow(streams[0]!.reader!)).text).toContain("messages_changed");
      const res = await disablePost(apiRequest("POST", "/", admin.cookie as never), { params: Promise.resolve({ id: victim.id }) });
      expect(res.status).toBe(200);
      // No timer has run: the streams ended inside the disable request.
      for (const stream of streams) expect((await drainNow(stream.reader!)).done).toBe(true);
      expect(rt.streams.count({ userId: victim.id })).toBe(0);
      expect(await me(victim.cookie)).toBe(401);
      // Everyone else's stream goes on.
      rt.bus.publish(event);
      expect((await drainNow(watcher.reader!)).text).toContain("messages_changed");
    });

    it("a disable written by another process (npm run users, another instance) ends the stream at the next re-check, within a second", async () => {
      const victim = await user("victim@example.com", "viewer");
      const stream = await open(victim.cookie);
      expect(STREAM_RECHECK_MS).toBeLessThan(1000);
      expect(time.pendingDelays()).toContain(STREAM_RECHECK_MS);
      if (engine === "sqlite") {
        // A second connection to the same file, as the CLI opens.
        const other = openSqliteDb({ file: rt.dbFile, reader: false });
        await disableUser(createSqliteAuthStore(other), { userId: victim.id, nowMs: time.clock.now() });
        await other.close();
      } else {
        await disableUser(rt.stores.auth, { userId: victim.id, nowMs: time.clock.now() });
      }
      expect((await drainNow(stream.reader!)).done).toBe(false);
      time.advance(STREAM_RECHECK_MS);
      await rt.streams.settled();
      expect((await drainNow(stream.reader!)).done).toBe(true);
      expect(rt.streams.count()).toBe(0);
      // No stream left: the re-check timer stops.
      expect(time.pendingDelays()).not.toContain(STREAM_RECHECK_MS);
    });

    it("a stream ends when its session goes idle or expires, without any request", async () => {
      const idle = await user("idle@example.com", "viewer");
      const stream = await open(idle.cookie);
      time.advance(29 * MIN);
      await rt.streams.settled();
      expect((await drainNow(stream.reader!)).done).toBe(false);
      time.advance(MIN + STREAM_RECHECK_MS);
      await rt.streams.settled();
      expect((await drainNow(stream.reader!)).done).toBe(true);
    });

    it("sign-out ends that session's streams only; ending one session from the admin API ends its streams", async () => {
      const admin = await user("boss@example.com", "admin");
      const member = await user("two-tabs@example.com", "viewer");
      const otherCookie = await cookieOf(member.id);
      const first = await open(member.cookie);
      const second = await open(otherCookie);
      expect((await logoutPost(apiRequest("POST", "/", member.cookie as never))).status).toBe(204);
      expect((await drainNow(first.reader!)).done).toBe(true);
      expect((await drainNow(second.reader!)).done).toBe(false);
      const [live] = await rt.stores.auth.listSessions({ userId: member.id, nowMs: time.clock.now(), idleSinceMs: 0 });
      const ended = await sessionDelete(apiRequest("DELETE", "/", admin.cookie as never), { params: Promise.resolve({ id: member.id, sessionId: live!.id }) });
      expect(ended.status).toBe(200);
      expect((await drainNow(second.reader!)).done).toBe(true);
    });

    it("a role change ends the user's streams so they reconnect under the new role", async () => {
      const admin = await user("boss@example.com", "admin");
      const other = await user("second-admin@example.com", "admin");
      const stream = await open(other.cookie);
      const res = await rolePut(apiRequest("PUT", "/", admin.cookie as never, { role: "viewer" }), { params: Promise.resolve({ id: other.id }) });
      expect(res.status).toBe(200);
      expect((await drainNow(stream.reader!)).done).toBe(true);
      expect((await open(other.cookie)).status).toBe(200);
    });

    it(`caps streams at ${MAX_STREAMS_PER_USER} per user across sessions, ${MAX_STREAMS_PER_SESSION} per session`, async () => {
      const member = await user("many@example.com", "viewer");
      const cookies = [member.cookie, await cookieOf(member.id), await cookieOf(member.id)];
      for (let i = 0; i < MAX_STREAMS_PER_SESSION; i++) expect((await open(cookies[0]!)).status).toBe(200);
      for (let i = 0; i < MAX_STREAMS_PER_USER - MAX_STREAMS_PER_SESSION; i++) expect((await open(cookies[1]!)).status).toBe(200);
      const refused = await eventsGet(new Request("http://localhost:3000/api/v1/system/events", { headers: { cookie: cookies[2]! } }));
      expect(refused.status).toBe(429);
      expect((await refused.json()).error.message).toContain("per user");
      // Another user is not affected.
      expect((await open((await user("else@example.com", "viewer")).cookie)).status).toBe(200);
    });
  });
}
