import type { ErrorCode } from "@/lib/api/error-codes";
import type { z } from "zod";

/**
 * Where a command's answer goes: a JSON document on stdout for scripts (the
 * API's wire shape, checked against its zod schema before printing), or a
 * few human lines. Errors: the API's error body with --json, else one line
 * on stderr.
 */
export type Output = {
  readonly json: boolean;
  result<T>(schema: z.ZodType<T>, value: T, human: (value: T) => string[]): void;
  error(code: ErrorCode | "usage", message: string): void;
  /** A human note on stderr (never in --json mode's stdout). */
  note(line: string): void;
};

export function createOutput(options: { json: boolean; stdout?: NodeJS.WritableStream; stderr?: NodeJS.WritableStream }): Output {
  const stdout = options.stdout ?? process.stdout;
  const stderr = options.stderr ?? process.stderr;
  return {
    json: options.json,
    result(schema, value, human) {
      // The same schema the API answers with: a drift fails here, loudly.
      const checked = schema.parse(value);
      if (options.json) stdout.write(`${JSON.stringify(checked)}\n`);
      else for (const line of human(checked)) stdout.write(`${line}\n`);
    },
    error(code, message) {
      if (options.json) stdout.write(`${JSON.stringify({ error: { code, message } })}\n`);
      else stderr.write(`compaction: ${message} (${code})\n`);
    },
    note(line) {
      if (!options.json) stderr.write(`${line}\n`);
    },
  };
}
