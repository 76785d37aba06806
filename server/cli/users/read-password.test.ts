import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { readPassword } from "./read-password";

// A terminal that records, in order, what was shown and when echo went off
// (raw true) and back on (raw false).
function fakeTerminal() {
  const input = Object.assign(new PassThrough(), { isTTY: true, modes: [] as boolean[] });
  const timeline: string[] = [];
  const tty = Object.assign(input, {
    setRawMode: (raw: boolean) => {
      input.modes.push(raw);
      timeline.push(raw ? "echo off" : "echo on");
    },
  });
  let shown = "";
  const output = {
    write: (text: string) => {
      shown += text;
      timeline.push(text);
    },
  };
  return { tty, output, shown: () => shown, timeline };
}

describe("readPassword", () => {
  it("reads a terminal with echo off, twice, with backspace and multi-byte letters, and restores the terminal", async () => {
    const { tty, output, shown } = fakeTerminal();
    const reading = readPassword({ input: tty, output, label: "Password" });
    tty.write("pässwordX\u007f-long\r");
    await new Promise((resolve) => setImmediate(resolve));
    tty.write(Buffer.from("pässword-long\n").subarray(0, 2));
    tty.write(Buffer.from("pässword-long\n").subarray(2));
    expect(await reading).toBe("pässword-long");
    expect(shown()).toBe("Password: \nRepeat password: \n");
    expect(tty.modes).toEqual([true, false]);
  });

  it("turns echo off before the first prompt shows and keeps it off until both are read", async () => {
    // A person (or a test) types as soon as a prompt shows: echo must already be off then.
    const { tty, output, timeline } = fakeTerminal();
    const reading = readPassword({ input: tty, output, label: "Password" });
    tty.write("same-password-1\r");
    await new Promise((resolve) => setImmediate(resolve));
    tty.write("same-password-1\r");
    expect(await reading).toBe("same-password-1");
    expect(timeline).toEqual(["echo off", "Password: ", "\n", "Repeat password: ", "\n", "echo on"]);
  });

  it("keeps keys typed or pasted ahead: both entries in one chunk, with CR LF line endings", async () => {
    const { tty, output } = fakeTerminal();
    const reading = readPassword({ input: tty, output, label: "Password" });
    tty.write("pasted-password\r\npasted-password\r\n");
    expect(await reading).toBe("pasted-password");
  });

  it("refuses an input that ends before a password, and restores the terminal", async () => {
    const { tty, output } = fakeTerminal();
    const reading = readPassword({ input: tty, output, label: "Password" });
    tty.end("half-typed");
    await expect(reading).rejects.toMatchObject({ code: "invalid_request" });
    expect(tty.modes).toEqual([true, false]);
  });

  it("refuses two different entries and a Ctrl-C", async () => {
    const differ = fakeTerminal();
    const first = readPassword({ input: differ.tty, output: differ.output, label: "Password" });
    differ.tty.write("one-password-x\r");
    await new Promise((resolve) => setImmediate(resolve));
    differ.tty.write("two-password-x\r");
    await expect(first).rejects.toMatchObject({ code: "invalid_request" });
    const cancelled = fakeTerminal();
    const second = readPassword({ input: cancelled.tty, output: cancelled.output, label: "Password" });
    cancelled.tty.write("abc\u0003");
    await expect(second).rejects.toThrow("Cancelled");
    expect(cancelled.tty.modes).toEqual([true, false]);
  });

  it("reads a pipe whole, less one line ending", async () => {
    const input = new PassThrough();
    input.end("  spaced password  \n");
    expect(await readPassword({ input, output: { write: () => true }, label: "Password" })).toBe("  spaced password  ");
  });
});
