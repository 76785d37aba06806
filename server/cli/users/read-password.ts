// Reads a password for `npm run users`. From a terminal: the terminal's echo
// is turned off (raw mode) so the password never appears on screen or in a
// terminal recording, and it is asked twice. From a pipe: the whole input,
// less one line ending, as before.
import { StringDecoder } from "node:string_decoder";
import { AppError } from "@/server/errors";

export type PasswordInput = NodeJS.ReadableStream & { isTTY?: boolean; setRawMode?: (raw: boolean) => unknown };
export type PromptOutput = { write(text: string): unknown };

async function readPiped(input: PasswordInput): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of input) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer));
  // Only the line ending is stripped: blanks inside the password are kept.
  return Buffer.concat(chunks).toString("utf8").replace(/\r?\n$/, "");
}

type HiddenLines = { next(): Promise<string>; close(): void };

/**
 * Lines typed with echo off: Enter ends one, Backspace deletes, Ctrl-C
 * aborts, Ctrl-D on an empty line ends it. Raw mode goes on here, before any
 * prompt is written, and stays on until close: a prompt on screen means echo
 * is already off, and keys typed or pasted ahead of the second prompt are
 * neither echoed nor lost.
 */
function openHiddenLines(input: PasswordInput): HiddenLines {
  const decoder = new StringDecoder("utf8");
  const ready: Array<string | Error> = [];
  let typed = "";
  let afterCarriageReturn = false;
  let waiting: { resolve: (line: string) => void; reject: (error: Error) => void } | null = null;
  const hand = () => {
    if (!waiting || ready.length === 0) return;
    const item = ready.shift()!;
    const { resolve, reject } = waiting;
    waiting = null;
    if (item instanceof Error) reject(item);
    else resolve(item);
  };
  const onData = (chunk: Buffer | string) => {
    for (const ch of typeof chunk === "string" ? chunk : decoder.write(chunk)) {
      const lineFeedOfCrLf = ch === "\n" && afterCarriageReturn;
      afterCarriageReturn = ch === "\r";
      if (lineFeedOfCrLf) continue;
      if (ch === "\r" || ch === "\n" || (ch === "\u0004" && typed === "")) {
        ready.push(typed);
        typed = "";
      } else if (ch === "\u0003") {
        ready.push(new AppError("invalid_request", "Cancelled"));
        typed = "";
      } else if (ch === "\u007f" || ch === "\b") {
        typed = [...typed].slice(0, -1).join("");
      } else if (ch >= " ") {
        // Other control characters (arrow keys' escapes) are not part of a password.
        typed += ch;
      }
    }
    hand();
  };
  const onEnd = () => {
    ready.push(new AppError("invalid_request", "The input ended before a password was entered"));
    hand();
  };
  input.setRawMode!(true);
  input.on("data", onData);
  input.once("end", onEnd);
  input.resume();
  return {
    next: () =>
      new Promise<string>((resolve, reject) => {
        waiting = { resolve, reject };
        hand();
      }),
    close: () => {
      input.off("data", onData);
      input.off("end", onEnd);
      input.setRawMode!(false);
      input.pause();
    },
  };
}

export async function readPassword(options: { input: PasswordInput; output: PromptOutput; label: string }): Promise<string> {
  const { input, output } = options;
  if (!input.isTTY || typeof input.setRawMode !== "function") return readPiped(input);
  const lines = openHiddenLines(input);
  const ask = async (prompt: string) => {
    output.write(prompt);
    try {
      return await lines.next();
    } finally {
      output.write("\n");
    }
  };
  try {
    const first = await ask(`${options.label}: `);
    const second = await ask(`Repeat ${options.label.toLowerCase()}: `);
    if (first !== second) throw new AppError("invalid_request", "The two passwords differ; nothing was changed");
    return first;
  } finally {
    lines.close();
  }
}
