// A second production server for specs that change global state (policy,
// backups): same build as the main e2e server, its own temp database and
// port, so the UI specs running beside it never see its changes.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ADMIN, VIEWER } from "./accounts";

// Playwright loads specs as CommonJS, so no import.meta here.
const NEXT_BIN = path.join(process.cwd(), "node_modules", "next", "dist", "bin", "next");

export type IsolatedServer = { baseURL: string; dbFile: string; stop(): Promise<void> };

/**
 * The port of one spec's own server. Each spec has a slot; with
 * E2E_ISOLATED_PORT_BASE set (several checkouts testing on one machine, each
 * with its own range) the port is base + slot, else the spec's fixed default.
 */
export const ISOLATED_SLOTS = {
  apiHttp: { slot: 0, fallback: 3199 },
  hostBinding: { slot: 1, fallback: 3196 },
  pinnedDesktop: { slot: 2, fallback: 3951 },
  pinnedPhone: { slot: 3, fallback: 3952 },
  retentionDesktop: { slot: 4, fallback: 3211 },
  retentionPhone: { slot: 5, fallback: 3212 },
  confirmDesktop: { slot: 6, fallback: 3961 },
  confirmPhone: { slot: 7, fallback: 3962 },
  sizes: { slot: 8, fallback: 3963 },
} as const;

export function isolatedPort(name: keyof typeof ISOLATED_SLOTS): number {
  const { slot, fallback } = ISOLATED_SLOTS[name];
  const base = Number(process.env.E2E_ISOLATED_PORT_BASE);
  return Number.isInteger(base) && base > 0 ? base + slot : fallback;
}

/** `extraEnv`: settings of this server only (for example a slower compaction pace). */
export async function startIsolatedServer(port: number, extraEnv: Record<string, string> = {}): Promise<IsolatedServer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "wsr-e2e-iso-"));
  const dbFile = path.join(dir, "workspace.db");
  const env = { ...process.env, DATABASE_URL: `file:${dbFile}`, LOG_LEVEL: "warn", ...extraEnv };
  const migrate = spawnSync("npm", ["run", "-s", "migrate"], { env, stdio: "inherit" });
  if (migrate.status !== 0) throw new Error("migrate failed");
  for (const [account, role] of [[ADMIN, "admin"], [VIEWER, "viewer"]] as const) {
    const users = spawnSync("npm", ["run", "-s", "users", "--", "create", "--email", account.email, "--role", role], {
      input: `${account.password}\n`,
      env,
      stdio: ["pipe", "inherit", "inherit"],
    });
    if (users.status !== 0) throw new Error(`creating the ${role} failed`);
  }
  const child: ChildProcess = spawn(process.execPath, [NEXT_BIN, "start", "-p", String(port)], {
    env,
    stdio: "ignore",
  });
  const baseURL = `http://localhost:${port}`;
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${baseURL}/api/v1/auth/me`)).status < 500) break;
    } catch {
      // not listening yet
    }
    if (i > 240) throw new Error("isolated server did not come up");
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return {
    baseURL,
    dbFile,
    async stop() {
      await new Promise<void>((resolve) => {
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      });
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
