import { describe, expect, it } from "vitest";
import { readSkeletonFacts, type SkeletonShape } from "./skeleton-facts";

const SHELL: SkeletonShape = { containerPath: ["normalized", "shell_exec", "output"], removedKeys: ["stdout", "stderr"] };
const EDIT: SkeletonShape = { containerPath: ["normalized", "modify_file", "mutations"], removedKeys: [] };
const shell = (output: string, root = "") => `{"tool_name":"bash",${root}"normalized":{"kind":"shell_exec","shell_exec":{"name":"sh","output":${output}}}}`;

describe("facts read from a skeleton", () => {
  it("counts the root's and the container's members and reads the tool names", () => {
    expect(readSkeletonFacts(shell(`{"exit_code":0,"truncated":false}`), "shell_exec", SHELL)).toEqual({
      repeats: 0,
      hasMarker: false,
      rootProvenance: false,
      names: ["bash", "sh"],
      rootMembers: 2,
      containerMembers: 2,
    });
  });

  it("a payload key or result still present counts as repeated: json_remove took only the first", () => {
    expect(readSkeletonFacts(shell(`{"stdout":"b"}`), "shell_exec", SHELL)?.repeats).toBe(1);
    expect(readSkeletonFacts(shell(`{}`, `"result":"r",`), "shell_exec", SHELL)?.repeats).toBe(1);
    expect(readSkeletonFacts(shell(`{"a":1,"a":2}`), "shell_exec", SHELL)?.repeats).toBe(1);
    expect(readSkeletonFacts(shell(`{"a":{"b":1,"b":2}}`), "shell_exec", SHELL)?.repeats).toBe(0);
  });

  it("keys are compared decoded, as the reducer compares them", () => {
    const facts = readSkeletonFacts(shell(`{}`, `"tool\\u005fname":"x","payload\\u005fretention":{},"m\\u006fnitor":1,`), "shell_exec", SHELL);
    expect(facts).toMatchObject({ repeats: 1, hasMarker: true, rootProvenance: true });
  });

  it("an array container counts its items; a scalar one has no members", () => {
    const edit = `{"normalized":{"kind":"modify_file","modify_file":{"mutations":[{"path":"a"},null,{"path":"b,]}"}]}}}`;
    expect(readSkeletonFacts(edit, "modify_file", EDIT)?.containerMembers).toBe(3);
    expect(readSkeletonFacts(shell(`"text"`), "shell_exec", SHELL)?.containerMembers).toBe(0);
  });

  it("strings with escaped quotes, backslashes and brackets are skipped whole", () => {
    const facts = readSkeletonFacts(shell(`{"cmd":"echo \\"}\\\\\\" ]","z":[1,{"q":"\\\\"}]}`), "shell_exec", SHELL);
    expect(facts).toMatchObject({ repeats: 0, containerMembers: 2 });
  });

  it("a key with an escaped NUL on the objects read (SQLite's paths stop comparing there) leaves the row to the reducer", () => {
    expect(readSkeletonFacts(shell(`{}`, `"normalized\\u0000":{},`), "shell_exec", SHELL)).toBeNull();
    expect(readSkeletonFacts(shell(`{"stdout\\u0000x":1}`), "shell_exec", SHELL)).toBeNull();
    expect(readSkeletonFacts(shell(`{"a":{"b\\u0000":1}}`), "shell_exec", SHELL)?.repeats).toBe(0);
  });

  it("anything but one JSON object leaves the row to the reducer", () => {
    for (const text of ["[1]", "{", `{"a":1}x`, `{"a":}`, `{"a" 1}`, `{"a":"1}`, `"s"`, ""]) {
      expect(readSkeletonFacts(text, "shell_exec", SHELL), text).toBeNull();
    }
  });
});
