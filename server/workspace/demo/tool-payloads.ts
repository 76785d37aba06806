// Tool messages for every compactable normalized kind, each on the message
// type it must sit on (DESIGN.md): shell_exec/tool_execute,
// read_file/tool_read, modify_file/tool_edit, code_search/tool_search,
// http_request and generic on tool_call.
import { sourceFiles, type Repo } from "./corpus";
import type { Rng } from "./prng";
import { bulkLog, searchHits, sourceText, testLog, unifiedDiff } from "./text-gen";

export type DemoMessage = {
  authorType: string;
  type: string;
  content: string;
  metadata: Record<string, unknown>;
};

const MODELS = ["claude-sonnet-4", "gpt-5-codex", "gemini-2.5-pro"] as const;

export function toolMessage(
  rng: Rng,
  options: { type: string; title: string; kind: string; payload: Record<string, unknown>; extra?: Record<string, unknown> },
): DemoMessage {
  return {
    authorType: "agent",
    type: options.type,
    content: options.title,
    metadata: {
      tool_call_id: `toolu_${rng.hex(24)}`,
      title: options.title,
      status: "complete",
      normalized: { kind: options.kind, [options.kind]: options.payload },
      provider: { agent: rng.pick(["claude-code", "codex", "gemini-cli"]), model: rng.pick(MODELS) },
      ...options.extra,
    },
  };
}

export function shellExec(rng: Rng, repo: Repo, options: { stdoutBytes?: number } = {}): DemoMessage {
  const big = options.stdoutBytes !== undefined;
  const variant = rng.int(0, 3);
  const command = big
    ? rng.pick(["npm ci --loglevel verbose", "go test -v -count=1 ./...", "git log -p --since=90.days", "pip install -v -e ."])
    : [repo.testCommand, repo.buildCommand, repo.lintCommand, "git status --short && git diff --stat"][variant]!;
  const failing = !big && variant === 0 && rng.chance(0.3);
  const stdout = big
    ? bulkLog(rng, repo, options.stdoutBytes!)
    : variant === 0
      ? testLog(rng, repo, { tests: rng.int(30, 120), failing })
      : variant === 3
        ? repo.files.slice(0, rng.int(2, 6)).map((f) => ` M ${f}`).join("\n") + `\n ${rng.int(2, 6)} files changed, ${rng.int(5, 300)} insertions(+), ${rng.int(0, 120)} deletions(-)`
        : bulkLog(rng, repo, rng.int(2_000, 9_000));
  const stderr = failing || rng.chance(0.2) ? `npm warn deprecated inflight@1.0.6: This module is not supported\nwarning: ${rng.int(1, 9)} lint warnings` : "";
  return toolMessage(rng, {
    type: "tool_execute",
    title: command,
    kind: "shell_exec",
    payload: {
      command,
      work_dir: repo.root,
      description: big ? "Full verbose run to find the slow step" : "Run the project checks",
      timeout: big ? 1_800_000 : 120_000,
      background: false,
      output: { exit_code: failing ? 1 : 0, stdout, stderr, truncated: big && rng.chance(0.5) },
    },
    extra: rng.chance(0.2) ? { result: failing ? "Tests failed (1)" : "Command completed" } : undefined,
  });
}

export function readFile(rng: Rng, repo: Repo, options: { lines?: number } = {}): DemoMessage {
  const file = rng.pick(sourceFiles(repo));
  const lines = options.lines ?? rng.int(40, 400);
  const offset = rng.chance(0.3) ? rng.int(1, 200) : 0;
  return toolMessage(rng, {
    type: "tool_read",
    title: `Read ${file}`,
    kind: "read_file",
    payload: {
      file_path: `${repo.root}/${file}`,
      offset,
      limit: lines,
      output: { content: sourceText(rng, repo, lines), line_count: lines, truncated: lines >= 2000, language: repo.language },
    },
  });
}

export function modifyFile(rng: Rng, repo: Repo): DemoMessage {
  const file = rng.pick(sourceFiles(repo));
  const mutations = Array.from({ length: rng.int(2, 5) }, () => {
    const oldContent = sourceText(rng, repo, rng.int(3, 12));
    const newContent = sourceText(rng, repo, rng.int(3, 14));
    const start = rng.int(1, 300);
    const type = rng.pick(["replace", "replace", "insert", "create", "rename"]);
    return {
      type,
      content: type === "create" ? sourceText(rng, repo, rng.int(20, 80)) : undefined,
      old_content: type === "create" ? undefined : oldContent,
      new_content: newContent,
      diff: unifiedDiff(rng, file, oldContent, newContent),
      new_path: type === "rename" ? file.replace(/(\.\w+)$/, ".next$1") : undefined,
      start_line: start,
      end_line: start + oldContent.split("\n").length,
    };
  });
  return toolMessage(rng, {
    type: "tool_edit",
    title: `Edit ${file}`,
    kind: "modify_file",
    // undefined fields vanish when the metadata is serialized.
    payload: { file_path: `${repo.root}/${file}`, mutations },
  });
}

export function codeSearch(rng: Rng, repo: Repo): DemoMessage {
  const symbol = rng.pick(repo.symbols);
  const files = searchHits(rng, repo, rng.int(3, 60));
  return toolMessage(rng, {
    type: "tool_search",
    title: `Search for ${symbol}`,
    kind: "code_search",
    payload: {
      query: symbol,
      pattern: `\\b${symbol}\\(`,
      path: repo.root,
      glob: { typescript: "**/*.{ts,tsx}", go: "**/*.go", python: "**/*.py", terraform: "**/*.tf" }[repo.language],
      output: { files, file_count: files.length, truncated: files.length >= 50 },
    },
  });
}

export function httpRequest(rng: Rng, repo: Repo, options: { bodyBytes?: number } = {}): DemoMessage {
  const url = rng.pick(repo.endpoints);
  const failed = rng.chance(0.15);
  const rows = Math.max(3, Math.floor((options.bodyBytes ?? rng.int(800, 12_000)) / 120));
  const body = JSON.stringify({
    data: Array.from({ length: rows }, (_, i) => ({
      id: `${repo.name.slice(0, 3)}_${rng.hex(12)}`,
      amount: rng.int(100, 99_999),
      currency: rng.pick(["EUR", "USD", "HKD", "CNY"]),
      status: rng.pick(["succeeded", "pending", "refunded"]),
      created: 1_700_000_000 + i * 37,
    })),
    has_more: rows > 50,
  });
  return toolMessage(rng, {
    type: "tool_call",
    title: `GET ${url}`,
    kind: "http_request",
    payload: {
      url,
      method: rng.pick(["GET", "GET", "POST"]),
      response: failed
        ? { status: 503, headers: { "retry-after": "30" }, body: '{"error":"upstream unavailable"}' }
        : { status: 200, headers: { "content-type": "application/json", "x-request-id": rng.hex(16) }, body },
      is_error: failed,
    },
  });
}

/** MCP-style generic tools: text results, plain strings, and structured ones. */
export function genericTool(rng: Rng, repo: Repo, variant: "text" | "string" | "resource" | "image" | "structured"): DemoMessage {
  const issue = rng.int(100, 9999);
  const text = `#${issue} ${rng.pick(repo.titles)}\n\n` +
    sourceText(rng, repo, rng.int(10, 60));
  const outputs = {
    text: { content: [{ type: "text", text }, { type: "text", text: `Labels: bug, p${rng.int(1, 3)}` }], isError: false },
    string: text,
    resource: {
      content: [
        { type: "text", text: "Fetched the runbook." },
        { type: "resource", resource: { uri: `file://${repo.root}/README.md`, mimeType: "text/markdown", text: sourceText(rng, repo, 30) } },
      ],
    },
    image: {
      content: [
        { type: "text", text: "Screenshot of the checkout page" },
        { type: "image", mimeType: "image/png", data: Buffer.from(rng.hex(600)).toString("base64") },
      ],
    },
    structured: { content: [{ type: "text", text: "3 issues" }], structuredContent: { issues: [issue, issue + 1, issue + 2] } },
  } as const;
  const name = {
    text: "mcp__github__get_issue",
    string: "WebFetch",
    resource: "mcp__docs__read_runbook",
    image: "mcp__playwright__browser_take_screenshot",
    structured: "mcp__linear__search_issues",
  }[variant];
  return toolMessage(rng, {
    type: "tool_call",
    title: name,
    kind: "generic",
    payload: { name, input: { repo: `acme/${repo.name}`, issue_number: issue, query: rng.pick(repo.symbols) }, output: outputs[variant] },
  });
}
