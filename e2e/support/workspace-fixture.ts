// A workspace fixture for specs on their own server: old, finished tasks with
// shell outputs worth compacting, plus one task whose state this version does
// not know and one with an unreadable timestamp (both kept, with a reason).
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const at = (day: number, hour = 10) => new Date(Date.UTC(2025, 0, day, hour)).toISOString().replace(".000Z", "Z");

function task(t: number, options: { state?: string; updatedAt?: string; messages?: number } = {}) {
  const chunk = `line ${t} of build output that goes on and on\n`.repeat(200);
  return {
    id: `fx-task-${t}`,
    title: `Old task ${t}`,
    state: options.state ?? "COMPLETED",
    createdAt: at(1 + t),
    updatedAt: options.updatedAt ?? at(1 + t, 12),
    queuedForStep: false,
    sessions: [
      {
        id: `fx-session-${t}`,
        state: "COMPLETED",
        startedAt: at(1 + t),
        updatedAt: at(1 + t, 12),
        completedAt: at(1 + t, 12),
        turns: [{ id: `fx-turn-${t}`, startedAt: at(1 + t), completedAt: at(1 + t, 12) }],
        messages: Array.from({ length: options.messages ?? 12 }, (_, m) => ({
          id: `fx-m-${t}-${m}`,
          turnId: `fx-turn-${t}`,
          authorType: "agent",
          type: "tool_execute",
          content: "Run tests",
          metadata: {
            tool_call_id: `fx-c-${t}-${m}`,
            title: "npm test",
            status: "complete",
            normalized: { kind: "shell_exec", shell_exec: { command: "npm test", work_dir: "/repo", output: { exit_code: 0, stdout: chunk, stderr: "", truncated: false } } },
          },
          createdAt: at(1 + t, 11),
          updatedAt: at(1 + t, 11),
        })),
        queuedMessages: [],
        runs: [],
      },
    ],
  };
}

export function writeWorkspaceFixture(file: string, tasks = 12): void {
  const all = [
    ...Array.from({ length: tasks }, (_, t) => task(t)),
    task(tasks, { state: "ARCHIVED_BY_PLUGIN" }),
    task(tasks + 1, { updatedAt: "yesterday-ish" }),
  ];
  fs.writeFileSync(file, JSON.stringify({ format: "workspace-fixture", version: 1, tasks: all }));
}

/** Imports the fixture into a server's database file (the server may be running). */
export function importWorkspaceFixture(dbFile: string, tasks = 12): void {
  const fixture = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "wsr-fixture-")), "fixture.json");
  writeWorkspaceFixture(fixture, tasks);
  const imported = spawnSync("npm", ["run", "-s", "db:import", "--", fixture], { env: { ...process.env, DATABASE_URL: `file:${dbFile}` }, stdio: "inherit" });
  fs.rmSync(path.dirname(fixture), { recursive: true, force: true });
  if (imported.status !== 0) throw new Error("fixture import failed");
}
