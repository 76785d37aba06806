// npm run users -- create|disable|enable|role|reset-password|list ... (server/cli/users/main.ts).
// Passwords are read from stdin, never from argv (other users of the machine
// can see the process list), with the terminal's echo off.
import pino from "pino";
import { runUsersCommand } from "@/server/cli/users/main";
import { systemClock } from "@/server/clock";
import { isAppError } from "@/server/errors";
import { createLogger } from "@/server/log";

const log = createLogger({ level: process.env.LOG_LEVEL ?? "warn", destination: pino.destination(2) });

runUsersCommand({
  argv: process.argv.slice(2).filter((arg, i) => !(i === 0 && arg === "--")),
  env: process.env,
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  clock: systemClock,
  log,
}).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`users: ${isAppError(error) || error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
