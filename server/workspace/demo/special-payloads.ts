// Messages compaction must leave alone: never-compacted kinds (create_task,
// subagent_task, show_plan, manage_todos, misc), payloads with background_work
// or monitor provenance, control tools reported as generic, kinds on the wrong
// message type, and every kind of non-tool message.
import { AGENT_REPLIES, THINKING, USER_PROMPTS, type Repo } from "./corpus";
import type { Rng } from "./prng";
import { bulkLog } from "./text-gen";
import { toolMessage, type DemoMessage } from "./tool-payloads";

export function createTaskTool(rng: Rng, repo: Repo): DemoMessage {
  const id = `tsk_${rng.hex(10)}`;
  return toolMessage(rng, {
    type: "tool_call",
    title: "Create follow-up task",
    kind: "create_task",
    payload: { title: `Follow-up: add tests for ${rng.pick(repo.symbols)}`, workflow_step: "backlog", result: { task_id: id, state: "CREATED" } },
  });
}

export function subagentTask(rng: Rng, repo: Repo): DemoMessage {
  return toolMessage(rng, {
    type: "tool_call",
    title: "Delegate: audit call sites",
    kind: "subagent_task",
    payload: {
      description: `Find every caller of ${rng.pick(repo.symbols)} and report unsafe uses`,
      subagent_type: "code-reviewer",
      report: `Found ${rng.int(2, 9)} call sites; two pass unvalidated input (see ${rng.pick(repo.files)}).`,
    },
  });
}

export function showPlan(rng: Rng, repo: Repo): DemoMessage {
  const steps = ["Reproduce the failure", `Read ${rng.pick(repo.files)}`, "Write a failing test", "Fix and run the suite", "Summarize"];
  return toolMessage(rng, {
    type: "agent_plan",
    title: "Plan",
    kind: "show_plan",
    payload: { plan: steps.map((step, i) => `${i + 1}. ${step}`).join("\n"), approved: true },
  });
}

export function manageTodos(rng: Rng): DemoMessage {
  return toolMessage(rng, {
    type: "todo",
    title: "Update todos",
    kind: "manage_todos",
    payload: {
      todos: [
        { content: "Reproduce locally", status: "completed" },
        { content: "Add regression test", status: rng.pick(["completed", "in_progress"]) },
        { content: "Update changelog", status: "pending" },
      ],
    },
  });
}

export function miscTool(rng: Rng): DemoMessage {
  return toolMessage(rng, {
    type: "tool_call",
    title: "Switch model",
    kind: "misc",
    payload: { action: "set_model", from: "claude-sonnet-4", to: rng.pick(["gpt-5-codex", "gemini-2.5-pro"]) },
  });
}

/** A dev server left running in the background: provenance keeps it intact. */
export function backgroundShell(rng: Rng, repo: Repo): DemoMessage {
  return toolMessage(rng, {
    type: "tool_execute",
    title: "npm run dev",
    kind: "shell_exec",
    payload: {
      command: "npm run dev -- --port 4100",
      work_dir: repo.root,
      background: true,
      background_work: { id: `bg_${rng.hex(8)}`, pid: rng.int(2000, 60000), status: rng.pick(["running", "exited"]) },
      output: { exit_code: null, stdout: bulkLog(rng, repo, rng.int(3_000, 8_000)), stderr: "", truncated: false },
    },
  });
}

/** A log monitor attached to a generic tool. */
export function monitorTool(rng: Rng, repo: Repo): DemoMessage {
  return toolMessage(rng, {
    type: "tool_call",
    title: "Tail worker logs",
    kind: "generic",
    payload: {
      name: "mcp__observability__tail_logs",
      input: { service: `${repo.name}-worker`, since: "15m" },
      output: { content: [{ type: "text", text: bulkLog(rng, repo, rng.int(2_000, 6_000)) }] },
      monitor: { id: `mon_${rng.hex(8)}`, interval_s: 30, active: rng.chance(0.5) },
    },
  });
}

/** A control tool normalized as generic: its input IS the todo list or plan. */
export function controlTool(rng: Rng, repo: Repo): DemoMessage {
  const name = rng.pick(["TodoWrite", "ExitPlanMode", "mcp__kandev__create_task"]);
  return toolMessage(rng, {
    type: "tool_call",
    title: name,
    kind: "generic",
    payload: {
      name,
      input: { todos: [{ content: `Fix ${rng.pick(repo.symbols)}`, status: "in_progress" }], plan: "1. Fix\n2. Test" },
      output: "ok",
    },
  });
}

/** Right kind, wrong message type: the reducer must skip it. */
export function mismatchedKind(rng: Rng, repo: Repo): DemoMessage {
  const message = toolMessage(rng, {
    type: "tool_call",
    title: "git diff",
    kind: "shell_exec",
    payload: { command: "git diff", work_dir: repo.root, output: { exit_code: 0, stdout: bulkLog(rng, repo, 2_500), stderr: "", truncated: false } },
  });
  return message;
}

export function userMessage(rng: Rng, title: string): DemoMessage {
  return { authorType: "user", type: "message", content: `${title}. ${rng.pick(USER_PROMPTS)}`, metadata: {} };
}

export function agentReply(rng: Rng): DemoMessage {
  return { authorType: "agent", type: "message", content: rng.pick(AGENT_REPLIES), metadata: { model: "claude-sonnet-4", usage: { input_tokens: rng.int(2_000, 90_000), output_tokens: rng.int(100, 4_000) } } };
}

export function thinking(rng: Rng): DemoMessage {
  return { authorType: "agent", type: "thinking", content: rng.pick(THINKING), metadata: { duration_ms: rng.int(300, 20_000) } };
}

export function smallMessage(rng: Rng, type: "progress" | "log" | "status" | "error" | "content"): DemoMessage {
  const content = {
    progress: `Running checks (${rng.int(1, 9)}/10)`,
    log: `agent: resumed session after ${rng.int(1, 50)}s idle`,
    status: rng.pick(["Session started", "Session completed", "Waiting for CI"]),
    error: "Tool call timed out after 120s; retrying once",
    content: rng.pick(AGENT_REPLIES),
  }[type];
  return { authorType: type === "content" ? "agent" : "system", type, content, metadata: type === "error" ? { code: "tool_timeout", retryable: true } : {} };
}

/** A permission or clarification request; `status` null leaves it pending. */
export function inputRequest(rng: Rng, type: "permission_request" | "clarification_request", status: string | null): DemoMessage {
  const metadata: Record<string, unknown> =
    type === "permission_request"
      ? { tool_call_id: `toolu_${rng.hex(24)}`, tool: "Bash", command: "rm -rf node_modules && npm ci", options: ["allow_once", "allow_always", "deny"] }
      : { question: "Should the fix also cover the staging configuration?", options: ["Yes", "No, production only"] };
  if (status !== null) metadata.status = status;
  return {
    authorType: "agent",
    type,
    content: type === "permission_request" ? "Allow running: rm -rf node_modules && npm ci" : "Question for you",
    metadata,
  };
}
