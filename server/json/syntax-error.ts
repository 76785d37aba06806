// What a strict parse (parseJsonTree in scan.ts) throws: a readable detail,
// where it happened in the text and in the document, so a fixture import can
// name the file and the JSON path without a stack trace.

export type JsonPath = ReadonlyArray<string | number>;

export class JsonSyntaxError extends Error {
  readonly position: number;
  readonly line: number;
  readonly column: number;
  readonly path: JsonPath;

  constructor(detail: string, text: string, position: number, path: JsonPath) {
    const { line, column } = lineColumn(text, position);
    super(detail);
    this.name = "JsonSyntaxError";
    this.position = position;
    this.line = line;
    this.column = column;
    this.path = [...path];
  }
}

function lineColumn(text: string, position: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < position && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: position - lineStart + 1 };
}

/** Formats a path the way error messages show it: tasks[3].sessions[0].id */
export function formatPath(path: JsonPath): string {
  let out = "";
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else if (/^[A-Za-z_$][\w$]*$/.test(part)) out += out ? `.${part}` : part;
    else out += `[${JSON.stringify(part)}]`;
  }
  return out || "(root)";
}
