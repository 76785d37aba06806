// The production app server a benchmark measures: `next start` on the built
// app (run `npm run build` first), with Node's arguments as `npm start` uses
// them, bound to loopback on `port`.
import { spawn, type ChildProcess } from "node:child_process";
import { createRequire } from "node:module";
import { nextServerArgv } from "../../lib/listen";

export type AppServer = { base: string; process: ChildProcess; stop(): Promise<void> };

/** Command-line option `--name value` of a benchmark, or `fallback`. */
export function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : fallback;
}

async function waitUntilUp(base: string): Promise<void> {
  for (let i = 0; i < 480; i++) {
    try {
      if ((await fetch(`${base}/api/v1/auth/me`)).status < 500) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error("server did not come up");
}

/** Starts the server and resolves once it answers. */
export async function startAppServer(options: { port: number; env: Record<string, string> }): Promise<AppServer> {
  const nextBin = createRequire(import.meta.url).resolve("next/dist/bin/next");
  const child = spawn(process.execPath, nextServerArgv(nextBin, ["start", "-p", String(options.port), "-H", "127.0.0.1"]), {
    stdio: ["ignore", "ignore", "inherit"],
    env: { ...process.env, LOG_LEVEL: "warn", NODE_ENV: "production", ...options.env },
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const base = `http://127.0.0.1:${options.port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await exited;
  };
  try {
    await waitUntilUp(base);
  } catch (error) {
    await stop();
    throw error;
  }
  return { base, process: child, stop };
}
