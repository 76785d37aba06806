// Runs the real `compaction` bin (bin/compaction.mjs -> tsx -> scripts/compaction.ts)
// as a child process against a given database file.
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";

export type CliResult = { status: number | null; stdout: string; stderr: string };

const ROOT = process.cwd();
const TSX = path.join(ROOT, "node_modules/tsx/dist/cli.mjs");

function childEnv(dbFile: string, extra: Record<string, string>): NodeJS.ProcessEnv {
  return { ...process.env, NODE_ENV: "test", LOG_LEVEL: "error", DATABASE_URL: `file:${dbFile}`, ...extra };
}

/** Waits for the child to exit (a state, not a time), with all it printed. */
function collect(child: ChildProcess): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    let stdout = "";
    let stderr = "";
    child.stdout?.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
    child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    child.on("error", reject);
    child.on("close", (status) => resolve({ status, stdout, stderr }));
  });
}

export function runCompactionCli(dbFile: string, args: string[], extraEnv: Record<string, string> = {}, cwd: string = ROOT): Promise<CliResult> {
  return collect(spawn(process.execPath, [path.join(ROOT, "bin/compaction.mjs"), ...args], { env: childEnv(dbFile, extraEnv), cwd }));
}

/** `npm run users` (scripts/users.ts), with `stdin` as its whole input. */
export function runUsers(dbFile: string, args: string[], stdin: string): Promise<CliResult> {
  const child = spawn(process.execPath, [TSX, "--conditions=react-server", "scripts/users.ts", ...args], { env: childEnv(dbFile, {}), cwd: ROOT });
  const result = collect(child);
  child.stdin.end(stdin);
  return result;
}

/** The last JSON document the command printed on stdout. */
export function jsonOf(result: CliResult): unknown {
  const lines = result.stdout.trim().split("\n");
  return JSON.parse(lines[lines.length - 1] ?? "null");
}

export type LiveServer = { child: ChildProcess; release(): Promise<void>; stop(): Promise<void> };

function waitForLine(child: ChildProcess, wanted: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let seen = "";
    const onData = (chunk: Buffer) => {
      seen += chunk.toString("utf8");
      if (seen.split("\n").includes(wanted)) {
        child.stdout?.off("data", onData);
        resolve();
      }
    };
    child.stdout?.on("data", onData);
    child.once("exit", (code) => reject(new Error(`live server exited (${code}) before "${wanted}"`)));
  });
}

/** Starts the live server process on `dbFile`; resolves once it holds the maintenance guard. */
export async function startLiveServer(dbFile: string): Promise<LiveServer> {
  const child = spawn(process.execPath, [TSX, "--conditions=react-server", "server/cli/test-support/live-server.ts"], {
    env: childEnv(dbFile, {}),
    stdio: ["pipe", "pipe", "inherit"],
  });
  await waitForLine(child, "held");
  return {
    child,
    async release() {
      const released = waitForLine(child, "released");
      child.stdin?.write("release\n");
      await released;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.stdin?.end();
      }),
  };
}
