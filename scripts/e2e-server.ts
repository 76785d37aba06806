// Playwright's web server: one production build, then `next start` on a
// fresh temporary database. The admin comes from ADMIN_EMAIL/ADMIN_PASSWORD
// (created by the server at startup on the empty user table, the path a real
// install uses); the viewer is then added through `npm run users`. Playwright
// waits for the "e2e-server: ready" line.
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { openDatabase } from "@/server/db/client";
import { importFixture } from "@/server/workspace/fixture/import-fixture";
import { conversationFixtureText } from "../e2e/support/conversation-fixture";
import { ADMIN, E2E_PORT, VIEWER } from "../e2e/support/accounts";
import { createSqliteWorkspaceStore } from "@/server/workspace/sqlite-store";
import { wrapSqliteDb } from "@/server/db/sqlite-db";
import { seedDemoThreadsIfEmpty } from "./lib/seed-threads";
import { seedDemoHistoryIfEmpty } from "@/server/maintenance/history/demo-seed";
import { buildPassThreadBundle, buildReadThreadBundle } from "./lib/pass-thread-bundle";
import { nextServerArgv } from "./lib/listen";
import { defaultReadThreadBundle } from "@/server/workspace/read-thread/bundle";
import { defaultPassThreadBundle } from "@/server/compaction/thread/thread-config";

const require = createRequire(import.meta.url);
const nextBin = require.resolve("next/dist/bin/next");

async function build(): Promise<void> {
  if (process.env.E2E_SKIP_BUILD === "1" && fs.existsSync(path.join(process.cwd(), ".next", "BUILD_ID"))) return;
  // As `npm run build`: the cleanup thread's bundle, so the specs' passes run where production's do.
  await buildPassThreadBundle({ outFile: defaultPassThreadBundle() });
  await buildReadThreadBundle({ outFile: defaultReadThreadBundle() });
  const result = spawnSync(process.execPath, [nextBin, "build"], {
    stdio: "inherit",
    env: { ...process.env, NEXT_SKIP_TYPECHECK: "1" },
  });
  if (result.status !== 0) {
    console.error("e2e-server: next build failed");
    process.exit(1);
  }
}

async function prepareDatabase(): Promise<{ dir: string; url: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "wsr-e2e-"));
  const file = path.join(dir, "workspace.db");
  const handle = openDatabase({ file });
  // One live task for the conversation spec (a compacted message answers 410).
  await importFixture(createSqliteWorkspaceStore(wrapSqliteDb(handle, { reader: false })), { file: "e2e/support/conversation-fixture.ts", text: conversationFixtureText() });
  handle.sqlite.close();
  const url = `file:${file}`;
  // A small version of the demo's agent threads, for the thread view spec.
  await seedDemoThreadsIfEmpty("small", { ...process.env, DATABASE_URL: url });
  // The demo's storage history, so the storage chart spec has days to draw.
  await seedDemoHistoryIfEmpty({ file, nowMs: Date.now(), seed: 20260101 });
  return { dir, url };
}

async function waitUntilUp(base: string): Promise<void> {
  for (let i = 0; i < 240; i++) {
    try {
      if ((await fetch(`${base}/api/v1/auth/me`)).status < 500) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error("server did not come up");
}

function createViewer(url: string): void {
  const result = spawnSync("npm", ["run", "-s", "users", "--", "create", "--email", VIEWER.email, "--role", "viewer"], {
    input: `${VIEWER.password}\n`,
    env: { ...process.env, DATABASE_URL: url },
    stdio: ["pipe", "inherit", "inherit"],
  });
  if (result.status !== 0) throw new Error("creating the viewer failed");
}

async function main(): Promise<void> {
  await build();
  const { dir, url } = await prepareDatabase();
  const child = spawn(process.execPath, nextServerArgv(nextBin, ["start", "-p", String(E2E_PORT)]), {
    stdio: "inherit",
    env: { ...process.env, DATABASE_URL: url, ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password, LOG_LEVEL: "warn" },
  });
  function cleanUp(): void {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  child.on("exit", (code) => {
    cleanUp();
    process.exit(code ?? 0);
  });
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => child.kill(signal));
  waitUntilUp(`http://localhost:${E2E_PORT}`)
    .then(() => {
      createViewer(url);
      console.log("e2e-server: ready");
    })
    .catch((error: unknown) => {
      console.error(`e2e-server: ${error instanceof Error ? error.message : String(error)}`);
      child.kill("SIGTERM");
    });
}

main().catch((error: unknown) => {
  console.error(`e2e-server: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
