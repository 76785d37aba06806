// Test-only: generated stored rows for the differential fuzz, by family:
// valid JSON, text that is not valid UTF-8, BLOB values, keys with an
// escaped NUL (which SQLite's path steps stop comparing at), bytes after
// the document, nesting around SQLite's 1000 levels, and wide arrays. Each
// row carries its expectation from the model (hostile-expect-test-support.ts).
import { expectRow, type Expected, type RowModel } from "./hostile-expect-test-support";
import { arr, bytesOf, hexBytes, leaf, member, obj, type Bytes, type Member, type ObjNode, type TreeNode } from "./hostile-tree-test-support";

export const FAMILIES = ["valid", "invalid_utf8", "blob", "nul_keys", "trailing", "deep", "wide"] as const;
export type Family = (typeof FAMILIES)[number];
export type HostileRow = { family: Family; type: string; bytes: Buffer; storage: "text" | "blob"; expect: Expected };

export function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    // mulberry32
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Byte sequences that are not UTF-8: stray bytes, overlong forms, encoded
// surrogates, truncated sequences, code points past U+10FFFF.
const INVALID = ["ff", "fe", "c080", "c1bf", "80", "bf", "eda080", "edbfbf", "f09080", "e282", "f4908080", "f888808080", "efbf", "c3", "e08080", "f5808080"].map(hexBytes);
// String pieces: plain text, every escape form (lone surrogate and NUL escapes included), raw UTF-8 (U+FFFD and U+2028 among them).
const PIECES = ["a", "b", "z", " ", "0", "\\n", '\\"', "\\\\", "\\/", "\\t", "\\u00e9", "\\ud83d\\ude00", "\\ud800", "\\u0000", "\\u2028", "é", "€", "😀", "\u2028", "\ufffd", "\ufeff", "{", "}", ",", ":", "[", "monitor", "payload_retention"].map(bytesOf);
const NUMBERS = ["0", "-0", "1", "9007199254740993", "1e400", "-0.0", "1.50", "2E+3", "12345678901234567890", "1E-7"];
const NAMES_PLAIN = ["bash", "run", "fetch_docs", "Read", "mcp__x__search", "Edit"];
const NAMES_CONTROL = ["TodoWrite", "update_task_plan", "mcp__kandev__create_task", "Task", "ask_user_question"];
const KINDS: Array<[kind: string, type: string]> = [
  ["shell_exec", "tool_execute"],
  ["read_file", "tool_read"],
  ["modify_file", "tool_edit"],
  ["code_search", "tool_search"],
  ["http_request", "tool_call"],
  ["generic", "tool_call"],
];

/** invalid: chance of a non-UTF-8 sequence in each string outside the payloads; invalidPayload: in each payload string. */
type Options = { invalid: number; invalidPayload: number; nulKeys: number; traps: number; pretty: number; wide: boolean; deepTo: number | null };

class Generator {
  private readonly random: () => number;
  private options!: Options;
  /** The deep chain still to place (a target nesting level for one value of the row). */
  private deepLeft: number | null = null;

  constructor(seed: number) {
    this.random = prng(seed);
  }

  private chance = (p: number) => this.random() < p;
  private int = (n: number) => Math.floor(this.random() * n);
  private pick = <T,>(items: readonly T[]): T => items[this.int(items.length)]!;

  /** A string token's bytes; `invalid` puts a non-UTF-8 sequence between its pieces. */
  private stringToken(pieces: number, invalid = this.chance(this.options.invalid)): Bytes {
    let out = '"';
    const at = invalid ? this.int(pieces + 1) : -1;
    for (let i = 0; i <= pieces; i++) {
      if (i === at) out += this.pick(INVALID);
      if (i < pieces) out += this.pick(PIECES);
    }
    return `${out}"`;
  }

  private text(pieces = this.int(12)): TreeNode {
    return leaf(this.stringToken(pieces), true);
  }

  /** A payload value: mostly a long string, sometimes any JSON value. */
  private payload(): TreeNode {
    if (this.chance(0.12)) return this.value(2);
    return leaf(this.stringToken(this.chance(0.5) ? 20 + this.int(60) : 150 + this.int(400), this.chance(this.options.invalidPayload)), true);
  }

  private scalar(): TreeNode {
    const r = this.random();
    if (r < 0.15) return leaf("null");
    if (r < 0.25) return leaf(this.chance(0.5) ? "true" : "false");
    if (r < 0.5) return leaf(this.pick(NUMBERS));
    return this.text();
  }

  private value(depth: number): TreeNode {
    if (this.deepLeft !== null && this.chance(0.3)) return this.deep();
    if (depth <= 0 || this.chance(0.6)) return this.scalar();
    if (this.chance(0.5)) return arr(Array.from({ length: this.int(4) }, () => this.value(depth - 1)));
    return obj(Array.from({ length: this.int(4) }, () => this.extra(depth - 1)));
  }

  /** A chain of nested containers reaching the row's target level from here (placed once). */
  private deep(): TreeNode {
    const levels = this.deepLeft!;
    this.deepLeft = null;
    let node: TreeNode = this.chance(0.5) ? leaf("1") : arr([]);
    for (let i = 1; i < levels; i++) node = this.chance(0.5) ? arr([node]) : obj([member(`"d"`, node)]);
    return node;
  }

  /** A key token for `name`: usually plain, sometimes escaped, NUL-suffixed or with a non-UTF-8 byte. */
  private key(name: string): Bytes {
    const token = bytesOf(JSON.stringify(name));
    if (this.chance(this.options.invalid * 0.3)) {
      const cut = 1 + this.int(token.length - 1);
      return `${token.slice(0, cut)}${this.pick(INVALID)}${token.slice(cut)}`;
    }
    if (/^[a-z_]+$/.test(name) && this.chance(0.04)) {
      const i = this.int(name.length);
      return `"${name.slice(0, i)}\\u${name.charCodeAt(i).toString(16).padStart(4, "0")}${name.slice(i + 1)}"`;
    }
    return token;
  }

  private m(name: string, value: TreeNode): Member {
    return member(this.key(name), value);
  }

  private extra(depth = 1): Member {
    return this.m(this.pick(["x", "0", "", "é", "meta", "id", "line", `k${this.int(50)}`]), this.value(depth));
  }

  /** Members of an object around the fixed ones, with the traps of this family: repeats, NUL twins, provenance. */
  private around(members: Member[], names: readonly string[]): Member[] {
    const out = [...members];
    for (let i = this.int(3); i > 0; i--) out.splice(this.int(out.length + 1), 0, this.extra());
    if (this.chance(this.options.nulKeys)) {
      const name = this.pick(names);
      out.splice(this.int(out.length + 1), 0, member(`"${name}${this.pick(["\\u0000", "\\u0000x", "\\u0000\\u0000"])}"`, this.payload()));
    }
    if (this.chance(this.options.traps * 0.3) && out.length > 0) {
      const copy = this.pick(out);
      out.splice(this.int(out.length + 1), 0, { ...copy, value: this.payload() });
    }
    if (this.chance(this.options.traps * 0.1)) out.push(this.m(this.pick(["monitor", "background_work"]), leaf("1")));
    return out;
  }

  private optional(name: string, value: () => TreeNode, p = 0.75): Member[] {
    return this.chance(p) ? [this.m(name, value())] : [];
  }

  private container(names: readonly string[], fixed: Member[]): ObjNode | TreeNode {
    if (this.chance(this.options.traps * 0.1)) return this.scalar();
    const payloads = names.flatMap((name) => this.optional(name, () => this.payload()));
    return obj(this.around([...fixed, ...payloads], names));
  }

  private mutations(): TreeNode {
    if (this.chance(this.options.traps * 0.1)) return this.value(2);
    const count = this.options.wide ? (this.chance(0.05) ? 2000 + this.int(3000) : this.int(400)) : this.int(5);
    const fields = ["content", "old_content", "new_content", "diff"];
    return arr(
      Array.from({ length: count }, () => {
        if (this.chance(this.options.traps * 0.05)) return this.scalar();
        const present = fields.flatMap((field) => this.optional(field, () => (this.options.wide && this.chance(0.7) ? this.text(this.int(6)) : this.payload()), 0.4));
        return obj(this.around([this.m("type", leaf('"edit"', true)), ...present], fields));
      }),
    );
  }

  private body(kind: string): TreeNode {
    const name = () => this.toolName();
    switch (kind) {
      case "shell_exec":
        return obj(this.around([this.m("command", this.text()), this.m("output", this.container(["stdout", "stderr"], [this.m("exit_code", leaf("0"))]))], ["output"]));
      case "read_file":
        return obj(this.around([this.m("file_path", this.text()), this.m("output", this.container(["content"], [this.m("line_count", leaf("3"))]))], ["output"]));
      case "modify_file":
        return obj(this.around([this.m("file_path", this.text()), this.m("mutations", this.mutations())], ["mutations"]));
      case "code_search": {
        const files = () => arr(Array.from({ length: this.options.wide ? this.int(3000) : this.int(4) }, () => this.text(4)));
        return obj(this.around([this.m("query", this.text()), this.m("output", obj(this.around([...this.optional("files", files), this.m("file_count", leaf("2"))], ["files"])))], ["output"]));
      }
      case "http_request":
        return obj(this.around([this.m("url", this.text()), ...this.optional("response", () => this.payload())], ["response"]));
      default:
        return obj(this.around([this.m("name", name()), ...this.optional("input", () => this.payload()), ...this.optional("output", () => this.result())], ["input", "output"]));
    }
  }

  private result(): TreeNode {
    const r = this.random();
    if (r < 0.6 || !this.chance(this.options.traps * 3)) return this.payload();
    const part = (type: string) => obj([this.m("type", leaf(JSON.stringify(type), true)), this.m(type === "text" ? "text" : "data", this.text())]);
    return this.pick([
      () => arr([part("text"), part("text")]),
      () => obj([this.m("content", arr([part("text")])), this.m("isError", leaf("false"))]),
      () => arr([part("image")]),
      () => obj([this.m("structuredContent", obj([this.m("a", leaf("1"))]))]),
      () => obj([this.m("a", leaf("1"))]),
    ])();
  }

  row(family: Family, removedAt: string): HostileRow {
    // Invalid UTF-8: in half the rows only inside payloads (what SQL removes), in the other half anywhere.
    const anywhere = this.chance(0.5);
    const other = family === "nul_keys" || family === "trailing" || family === "blob" ? 0.03 : 0;
    this.options = {
      invalid: family === "invalid_utf8" ? (anywhere ? 0.15 : 0) : other,
      invalidPayload: family === "invalid_utf8" ? 0.6 : family === "nul_keys" ? 0.3 : other,
      nulKeys: family === "nul_keys" ? (this.chance(0.7) ? 0.3 : 0) : 0,
      traps: 0.1,
      pretty: 0.15,
      wide: family === "wide",
      deepTo: family === "deep" ? 990 + this.int(16) : null,
    };
    const [kind, type] = this.pick(KINDS);
    // Deep rows place one chain so the deepest value sits at the target level (the container is three to five levels down).
    this.deepLeft = this.options.deepTo === null ? null : this.options.deepTo - 4;
    const normalized = obj(this.around([this.m("kind", leaf(this.kindToken(kind), true)), this.m(kind, this.body(kind))], ["kind", kind]));
    const rootMembers = this.around(
      [
        this.m("tool_call_id", this.text(4)),
        ...this.optional("title", () => this.text()),
        this.m("normalized", normalized),
        ...this.optional("result", () => this.result(), 0.6),
        ...this.optional("tool_name", () => this.toolName(), 0.3),
        ...this.optional("payload_retention", () => obj([this.m("version", leaf("1"))]), this.options.traps * 0.2),
      ],
      ["normalized", "result", "payload_retention", "tool_name"],
    );
    if (this.deepLeft !== null) rootMembers.push(this.m("deep", this.deep()));
    if (this.chance(0.5)) rootMembers.reverse();
    const pretty = this.chance(this.options.pretty);
    const gap = () => (pretty ? this.pick(["", " ", "\n  ", "\t", "\r\n"]) : "");
    const model: RowModel = {
      type: this.chance(this.options.traps * 0.2) ? this.pick(["tool_read", "tool_call", "tool_edit", "tool_search"]) : type,
      root: obj(rootMembers),
      gap,
      storage: family === "blob" ? "blob" : "text",
    };
    if (family === "trailing") {
      const extra = hexBytes(this.pick(["00", "0078", "78", "ff", "7d", "20", "0a20", "205d", "00ff", "efbbbf", "c2a0", "0b", "0c"]));
      if (this.chance(0.7)) model.trailing = extra;
      else model.leading = extra;
    }
    // A non-UTF-8 byte outside any string: not JSON.
    if (family === "invalid_utf8" && this.chance(0.04)) model.trailing = ` ${this.pick(INVALID)}`;
    const { bytes, expect } = expectRow(model, removedAt);
    return { family, type: model.type, bytes, storage: model.storage, expect };
  }

  /** A tool name, a control tool's now and then; with a non-UTF-8 byte inside in the families that have them. */
  private toolName(): TreeNode {
    const name = this.chance(this.options.traps * 0.3) ? this.pick(NAMES_CONTROL) : this.pick(NAMES_PLAIN);
    if (!this.chance(this.options.invalid * 0.3)) return leaf(JSON.stringify(name), true);
    const cut = 1 + this.int(name.length + 1);
    const token = JSON.stringify(name);
    return leaf(`${token.slice(0, cut)}${this.pick(INVALID)}${token.slice(cut)}`, true);
  }

  private kindToken(kind: string): Bytes {
    if (this.chance(this.options.invalid * 0.1)) return `"${kind}${this.pick(INVALID)}"`;
    if (this.chance(0.05)) return `"${kind.replace("_", "\\u005f")}"`;
    return JSON.stringify(kind);
  }
}

/** An endless stream of rows of one family, the same for the same seed. */
export function hostileRows(family: Family, seed: number, removedAt: string): () => HostileRow {
  const generator = new Generator(seed);
  return () => generator.row(family, removedAt);
}
