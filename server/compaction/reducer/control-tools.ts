// Control tools: tool calls whose inputs and results ARE the record of a
// platform contract (a task, a plan, a todo list, a question to the user, a
// permission, an attachment, an MCP resource). Other features read those
// payloads back, so Messages compaction never removes them, even when an
// adapter normalized the call as `generic`.
//
// Sources: the workspace MCP server registers create_task, update_task,
// list_*, ask_user_question and the *_task_plan tools; agent CLIs ship
// built-in control tools (TodoWrite, Task, ExitPlanMode, AskUserQuestion,
// update_plan); MCP resource access goes through the client's resource
// reader tools and the resources/* protocol methods.

export type ControlContract = "task" | "entity" | "plan" | "todo" | "clarification" | "permission" | "subagent" | "attachment" | "resource";

export type ControlTool = { name: string; contract: ControlContract; why: string };

export const CONTROL_TOOLS: readonly ControlTool[] = [
  { name: "create_task", contract: "task", why: "creates a task (or subtask) and starts an agent on it; the result holds the new task's identity" },
  { name: "update_task", contract: "task", why: "changes a task's title, description or state; the call is the audit of that change" },
  { name: "list_tasks", contract: "entity", why: "result is a list of task references the agent acted on" },
  { name: "list_workspaces", contract: "entity", why: "result is workspace references later calls point at" },
  { name: "list_workflows", contract: "entity", why: "result is workflow references used to create tasks" },
  { name: "list_workflow_steps", contract: "entity", why: "result is workflow step references used to admit tasks" },
  // Also matches the agent CLI built-in AskUserQuestion (same canonical name).
  { name: "ask_user_question", contract: "clarification", why: "the question and the user's chosen answer are the clarification record" },
  { name: "request_permission", contract: "permission", why: "a permission decision; permission history must stay auditable" },
  { name: "create_task_plan", contract: "plan", why: "the input is the plan document itself" },
  { name: "get_task_plan", contract: "plan", why: "the result is the plan, including user edits, as the agent saw it" },
  { name: "update_task_plan", contract: "plan", why: "the input is the revised plan document" },
  { name: "delete_task_plan", contract: "plan", why: "records which plan was deleted" },
  { name: "ExitPlanMode", contract: "plan", why: "agent CLI built-in: the input is the plan presented for approval" },
  { name: "update_plan", contract: "plan", why: "agent CLI built-in plan/step list shown in the conversation" },
  { name: "TodoWrite", contract: "todo", why: "agent CLI built-in: the input is the whole todo list" },
  { name: "manage_todos", contract: "todo", why: "todo list tool; also a never-compacted normalized kind" },
  { name: "Task", contract: "subagent", why: "agent CLI built-in that launches a subagent; the result is the subagent's report" },
  { name: "subagent_task", contract: "subagent", why: "subagent record; also a never-compacted normalized kind" },
  { name: "attach_file", contract: "attachment", why: "the result carries attachment metadata the conversation links to" },
  { name: "ListMcpResourcesTool", contract: "resource", why: "result lists MCP resource URIs (resource contract)" },
  { name: "ReadMcpResourceTool", contract: "resource", why: "result is MCP resource contents with their URIs and MIME types" },
  { name: "resources/read", contract: "resource", why: "MCP protocol method returning resource contents" },
  { name: "resources/list", contract: "resource", why: "MCP protocol method returning resource references" },
];

/**
 * Canonical form for matching: the tool part of an MCP-qualified name
 * (`mcp__server__tool`), lower-cased, separators dropped, so `TodoWrite`,
 * `todo_write` and `mcp__kandev__create_task` match their entries.
 */
export function canonicalToolName(name: string): string {
  const lastQualifier = name.lastIndexOf("__");
  const bare = lastQualifier >= 0 ? name.slice(lastQualifier + 2) : name;
  return bare.toLowerCase().replace(/[^a-z0-9]/g, "");
}

const BY_CANONICAL: ReadonlyMap<string, ControlTool> = new Map(CONTROL_TOOLS.map((tool) => [canonicalToolName(tool.name), tool]));

// A pass asks about the same few tool names on every row. Bounded, as
// names are agent-chosen text: short names only, at most BY_NAME_MAX.
const byName = new Map<string, ControlTool | null>();
const BY_NAME_MAX = 4096;
const CACHED_NAME_MAX_LENGTH = 128;

/** The registry entry a tool name matches, or null for an ordinary tool. */
export function findControlTool(name: string): ControlTool | null {
  const known = byName.get(name);
  if (known !== undefined) return known;
  const tool = BY_CANONICAL.get(canonicalToolName(name)) ?? null;
  if (name.length <= CACHED_NAME_MAX_LENGTH) {
    if (byName.size >= BY_NAME_MAX) byName.clear();
    // A copy: the reducer's names are slices of a row's text, and V8 keeps
    // the whole text alive behind a slice.
    byName.set(Buffer.from(name, "utf8").toString("utf8"), tool);
  }
  return tool;
}
