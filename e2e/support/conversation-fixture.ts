// A workspace fixture for the conversation e2e spec, imported by
// scripts/e2e-server.ts into the fresh database. The task is IN_PROGRESS
// (a live task), so compaction specs never find it eligible. One shell
// message keeps its output; the other already carries a compaction marker,
// so its output endpoint answers 410 tool_payload_removed.
export const CONVERSATION_TASK = { id: "e2e-conversation", title: "E2E conversation: run the test suite" };
export const LIVE_OUTPUT = { messageId: "e2e-m-live", stdout: "PASS 12 tests (e2e live output)" };
export const REMOVED_OUTPUT = { messageId: "e2e-m-removed", removedAt: "2026-03-04T05:06:00Z", command: "npm run build" };

export function conversationFixtureText(): string {
  const shell = (command: string, output: Record<string, unknown>) => ({
    tool_call_id: `call-${command.replace(/\W+/g, "-")}`,
    title: command,
    status: "complete",
    normalized: { kind: "shell_exec", shell_exec: { command, work_dir: "/repo", output } },
  });
  const at = (minute: number) => `2026-03-01T10:${String(minute).padStart(2, "0")}:00Z`;
  const message = (id: string, minute: number, rest: Record<string, unknown>) => ({ id, turnId: "e2e-u1", createdAt: at(minute), updatedAt: at(minute), ...rest });
  const removed = {
    ...shell(REMOVED_OUTPUT.command, { exit_code: 1, truncated: false }),
    payload_retention: {
      version: 1,
      removed_at: REMOVED_OUTPUT.removedAt,
      removed_fields: ["normalized.shell_exec.output.stdout", "normalized.shell_exec.output.stderr"],
      removed_bytes: 52311,
    },
  };
  const fixture = {
    format: "workspace-fixture",
    version: 1,
    tasks: [
      {
        id: CONVERSATION_TASK.id,
        title: CONVERSATION_TASK.title,
        state: "IN_PROGRESS",
        createdAt: at(0),
        updatedAt: at(9),
        queuedForStep: false,
        sessions: [
          {
            id: "e2e-s1",
            state: "RUNNING",
            startedAt: at(0),
            updatedAt: at(9),
            completedAt: null,
            turns: [{ id: "e2e-u1", startedAt: at(0), completedAt: null }],
            messages: [
              message("e2e-m-user", 1, { authorType: "user", type: "message", content: "Please run the test suite and the build.", metadata: {} }),
              message(LIVE_OUTPUT.messageId, 2, {
                authorType: "agent",
                type: "tool_execute",
                content: "Running the tests",
                metadata: shell("npm test", { exit_code: 0, stdout: LIVE_OUTPUT.stdout, stderr: "", truncated: false }),
              }),
              message(REMOVED_OUTPUT.messageId, 3, { authorType: "agent", type: "tool_execute", content: "Running the build", metadata: removed }),
              message("e2e-m-reply", 4, { authorType: "agent", type: "message", content: "Tests pass; the build failed with exit code 1.", metadata: {} }),
            ],
            queuedMessages: [],
            runs: [{ id: "e2e-r1", state: "RUNNING" }],
          },
        ],
      },
    ],
  };
  return JSON.stringify(fixture);
}
