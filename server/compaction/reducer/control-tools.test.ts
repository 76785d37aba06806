import { describe, expect, it } from "vitest";
import { CONTROL_TOOLS, canonicalToolName, findControlTool } from "./control-tools";
import { reduceToolPayload } from "./reducer";

const BIG = "x".repeat(2000);

describe("control tool registry", () => {
  for (const tool of CONTROL_TOOLS) {
    it(`[TPR-RED-13] ${tool.name} (${tool.contract}) is a control tool and its generic call is kept`, () => {
      expect(tool.why.length).toBeGreaterThan(10);
      expect(findControlTool(tool.name)).toBe(tool);
      expect(findControlTool(`mcp__workspace__${tool.name}`)).toBe(tool);
      const metadata = JSON.stringify({ normalized: { kind: "generic", generic: { name: tool.name, input: { a: BIG }, output: BIG } } });
      expect(reduceToolPayload({ type: "tool_call", metadata, removedAt: "2026-06-01T00:00:00Z" })).toEqual({
        outcome: "skipped",
        reason: "unsupported",
      });
    });
  }

  it("[TPR-RED-13] entries are unique after canonicalization and ordinary tools are not matched", () => {
    const canonical = CONTROL_TOOLS.map((tool) => canonicalToolName(tool.name));
    expect(new Set(canonical).size).toBe(canonical.length);
    for (const name of ["Bash", "Read", "Edit", "grep", "fetch", "web_search", "read", "list", "mcp__github__get_file"]) {
      expect(findControlTool(name), name).toBeNull();
    }
    expect(canonicalToolName("mcp__kandev__Todo_Write")).toBe("todowrite");
    expect(findControlTool("AskUserQuestion")?.name).toBe("ask_user_question");
  });

  it("[TPR-RED-13] answers the same for a name asked again, also after thousands of other names", () => {
    expect(findControlTool("mcp__kandev__create_task")?.name).toBe("create_task");
    for (let i = 0; i < 10_000; i++) expect(findControlTool(`tool_${i}`)).toBeNull();
    expect(findControlTool("mcp__kandev__create_task")?.name).toBe("create_task");
    expect(findControlTool("TodoWrite")?.name).toBe("TodoWrite");
    expect(findControlTool("Bash")).toBeNull();
    // Names too long to keep are still judged.
    const long = `mcp__${"x".repeat(300)}__create_task`;
    expect(findControlTool(long)?.name).toBe("create_task");
    expect(findControlTool(long)?.name).toBe("create_task");
  });
});
