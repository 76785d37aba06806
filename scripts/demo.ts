// npm run demo: build if needed, migrate ./data/workspace.db, seed the demo
// workspace when it has no tasks and the demo agent threads when no thread
// has checkpoints, create demo users when none exist, and serve the
// production build on HOST (default 127.0.0.1) and PORT (default 3000).
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { createUser, countUsers } from "@/server/auth/users";
import { systemClock } from "@/server/clock";
import { DEFAULT_DATABASE_URL, parseDatabaseUrl } from "@/server/db/url";
import { seedDemoWorkspace } from "@/server/workspace/demo/seed";
import { openConfiguredDatabase } from "./lib/database";
import { displayUrl, listenAddress, nextServerArgv, nextStartArgs } from "./lib/listen";
import { seedDemoThreadsIfEmpty } from "./lib/seed-threads";
import { seedDemoHistoryIfEmpty } from "@/server/maintenance/history/demo-seed";
import { buildPassThreadBundle, buildReadThreadBundle } from "./lib/pass-thread-bundle";
import { defaultReadThreadBundle } from "@/server/workspace/read-thread/bundle";
import { defaultPassThreadBundle } from "@/server/compaction/thread/thread-config";
import { createSqliteWorkspaceStore } from "@/server/workspace/sqlite-store";
import { wrapSqliteDb } from "@/server/db/sqlite-db";
import { createSqliteAuthStore } from "@/server/auth/sqlite-store";
import type { AuthStore } from "@/server/auth/store";

const DEMO_SEED = 20260101;
const require = createRequire(import.meta.url);
const nextBin = require.resolve("next/dist/bin/next");

type Credentials = { admin: { email: string; password: string }; viewer: { email: string; password: string } };

function ensureBuild(): void {
  if (fs.existsSync(path.join(process.cwd(), ".next", "BUILD_ID"))) return;
  console.log("demo: no production build yet, running next build (takes a minute)…");
  const result = spawnSync(process.execPath, [nextBin, "build"], {
    stdio: "inherit",
    env: { ...process.env, NEXT_SKIP_TYPECHECK: "1" },
  });
  if (result.status !== 0) throw new Error("next build failed");
}

/**
 * The cleanup thread's bundle (npm run build writes it too), rebuilt each
 * time (a second or two) so it is never older than the sources; without it
 * cleanup runs inline.
 */
async function ensurePassThreadBundle(): Promise<void> {
  const outFile = defaultPassThreadBundle();
  try {
    await buildPassThreadBundle({ outFile });
    await buildReadThreadBundle({ outFile: defaultReadThreadBundle() });
  } catch (error) {
    console.log(`demo: cleanup thread bundle not built (${(error as Error).name}); cleanup passes run inline`);
  }
}

function password(): string {
  return randomBytes(12).toString("base64url");
}

/**
 * Demo users get random passwords, kept (mode 0600) beside the database so a
 * second `npm run demo` can print them again.
 */
async function ensureDemoUsers(store: AuthStore, credentialsFile: string): Promise<Credentials | null> {
  if ((await countUsers(store)) > 0) {
    if (!fs.existsSync(credentialsFile)) return null;
    return JSON.parse(fs.readFileSync(credentialsFile, "utf8")) as Credentials;
  }
  const credentials: Credentials = {
    admin: { email: "admin@example.com", password: password() },
    viewer: { email: "viewer@example.com", password: password() },
  };
  const nowMs = systemClock.now();
  await store.writeTransaction(async (tx) => {
    await createUser(tx, { ...credentials.admin, role: "admin", nowMs });
    await createUser(tx, { ...credentials.viewer, role: "viewer", nowMs });
  });
  fs.writeFileSync(credentialsFile, JSON.stringify(credentials, null, 2), { mode: 0o600 });
  return credentials;
}

async function prepareDatabase(): Promise<Credentials | null> {
  process.env.DATABASE_URL ??= DEFAULT_DATABASE_URL;
  const target = parseDatabaseUrl(process.env.DATABASE_URL);
  if (target.engine !== "sqlite") throw new Error("npm run demo needs a file: DATABASE_URL");
  fs.mkdirSync(path.dirname(target.file), { recursive: true, mode: 0o700 });
  const handle = openConfiguredDatabase();
  // No read connection: this script is the only one on the file.
  const db = wrapSqliteDb(handle, { reader: false });
  try {
    const { n } = handle.sqlite.prepare("select count(*) as n from tasks").get() as { n: number };
    if (n === 0) {
      console.log("demo: seeding the demo workspace…");
      await seedDemoWorkspace({ store: createSqliteWorkspaceStore(db), seed: DEMO_SEED, nowMs: systemClock.now() });
    } else {
      console.log(`demo: database already has ${n} tasks, not seeding`);
    }
    return await ensureDemoUsers(createSqliteAuthStore(db), path.join(path.dirname(target.file), "demo-credentials.json"));
  } finally {
    handle.sqlite.close();
  }
}

/** Agent threads go through the thread service, in the mode the server will run with. */
async function prepareThreads(): Promise<void> {
  const outcome = await seedDemoThreadsIfEmpty("demo");
  if (!outcome.seeded) {
    console.log(`demo: ${outcome.existing} agent threads already stored, not seeding`);
    return;
  }
  const { threads, runs } = outcome.result;
  console.log(`demo: seeded ${threads.length} agent threads (${runs} runs) in ${(outcome.ms / 1000).toFixed(1)} s`);
}

/** 120 made-up days of storage history before a real sample of today, so the storage chart has something to show. */
async function prepareHistory(): Promise<void> {
  const target = parseDatabaseUrl(process.env.DATABASE_URL);
  if (target.engine !== "sqlite") return;
  const seeded = await seedDemoHistoryIfEmpty({ file: target.file, nowMs: systemClock.now(), seed: DEMO_SEED });
  console.log(seeded > 0 ? `demo: seeded the storage history (${seeded} samples: 120 made-up days, then today's real one)` : "demo: storage history already present, not seeding");
}

async function waitUntilUp(url: string, isAlive: () => boolean): Promise<boolean> {
  for (let i = 0; i < 120 && isAlive(); i++) {
    try {
      const response = await fetch(url, { redirect: "manual" });
      if (response.status < 500) return true;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  return false;
}

async function main(): Promise<void> {
  ensureBuild();
  await ensurePassThreadBundle();
  const credentials = await prepareDatabase();
  console.log("demo: checking for agent threads (seeded through the thread service when none are stored)…");
  await prepareThreads();
  await prepareHistory();
  const child = spawn(process.execPath, nextServerArgv(nextBin, nextStartArgs(process.env)), { stdio: "inherit", env: process.env });
  let alive = true;
  child.on("exit", (code) => {
    alive = false;
    process.exit(code ?? 0);
  });
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => child.kill(signal));
  const url = displayUrl(process.env);
  const { host, port } = listenAddress(process.env);
  // Probe where the server listens (a wildcard address answers on loopback).
  const probe = host === "0.0.0.0" || host === "::" ? `http://127.0.0.1:${port}` : url;
  if (!(await waitUntilUp(`${probe}/api/v1/auth/me`, () => alive))) return;
  console.log(`\nDemo is running at ${url}/en/sign-in`);
  if (credentials) {
    console.log(`  admin : ${credentials.admin.email}  password: ${credentials.admin.password}`);
    console.log(`  viewer: ${credentials.viewer.email}  password: ${credentials.viewer.password}`);
  } else {
    console.log("  users already existed before the demo; sign in with those accounts");
  }
}

main().catch((error: unknown) => {
  console.error(`demo: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
