// Test fixtures for maintenance tests: a real temp database with a little data.
import { manualClock } from "@/server/clock";
import { createTestDb, type TestDb } from "@/server/db/test-db";
import { createLogger } from "@/server/log";

export const T0 = Date.parse("2026-11-29T22:30:00Z");

export const silentLog = createLogger({ level: "silent" });

/** A temp workspace database holding one task, one session and `messages` tool messages. */
export function seededDb(messages = 20, payloadBytes = 2000): TestDb {
  const t = createTestDb("ws-maint-");
  const ins = t.sqlite.transaction(() => {
    t.sqlite
      .prepare("insert into tasks (id, title, state, created_at, created_at_ms, updated_at, updated_at_ms) values (?,?,?,?,?,?,?)")
      .run("t1", "Task", "COMPLETED", "2026-01-01T00:00:00Z", 0, "2026-01-01T00:00:00Z", 0);
    t.sqlite
      .prepare("insert into task_sessions (id, task_id, state, updated_at, updated_at_ms) values (?,?,?,?,?)")
      .run("s1", "t1", "COMPLETED", "2026-01-01T00:00:00Z", 0);
    const msg = t.sqlite.prepare(
      "insert into messages (id, session_id, author_type, type, content, metadata, created_at, created_at_ms, updated_at, updated_at_ms) values (?,?,?,?,?,?,?,?,?,?)",
    );
    for (let i = 0; i < messages; i++) {
      const metadata = JSON.stringify({ normalized: { kind: "shell_exec", shell_exec: { output: { stdout: "x".repeat(payloadBytes) } } } });
      msg.run(`m${i}`, "s1", "agent", "tool_execute", "Run", metadata, "2026-01-01T00:00:00Z", 0, "2026-01-01T00:00:00Z", 0);
    }
  });
  ins();
  return t;
}

export function testClock() {
  return manualClock(T0);
}
