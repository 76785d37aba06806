// #26's acceptance on the real clock: a disabled user's open event stream
// closes within a second and their cookie answers 401. Starts the production
// server (`next start` on the built app, a fresh temp SQLite database, or a
// fresh database on `--postgres URL`), opens an event stream per victim, and
// times from the disable to the stream's end:
//   api          an admin's POST /api/v1/users/{id}/disable (ends the
//                stream inside the request: the server's own change)
//   cli          `npm run users disable` (its runUsersCommand, in this
//                process, on a connection of its own): a change another
//                process made, seen at the server's next re-check (500 ms)
// then asks GET /api/v1/auth/me with the victim's cookie (401 expected).
// Baseline in the same run: the round trip of GET /api/v1/auth/me, the
// floor of any answer "at once".
// Needs `npm run build` first.
//   npx tsx --conditions=react-server scripts/bench/stream-revocation.ts [--port 3232] [--rounds 10] [--postgres URL]
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { PassThrough } from "node:stream";
import { hashSessionToken } from "@/server/auth/current-user";
import { runUsersCommand } from "@/server/cli/users/main";
import { systemClock } from "@/server/clock";
import { createLogger } from "@/server/log";
import { arg, startAppServer } from "./lib/app-server";
import { openBenchDb, type BenchDb } from "./lib/bench-db";

const PORT = Number(arg("port", "3232"));
const ROUNDS = Number(arg("rounds", "10"));
const BASE = `http://127.0.0.1:${PORT}`;
const POSTGRES = process.argv.includes("--postgres") ? arg("postgres", "") : null;
const ADMIN_TOKEN = "bench-admin-token";

/** An account with one live session; returns its cookie. */
async function account(db: BenchDb, id: string, role: "admin" | "viewer", token: string): Promise<string> {
  const now = Date.now();
  await db.run(`insert into users (id, email, role, password_hash, created_at) values (?, ?, ?, 'x', '2026-01-01T00:00:00Z')`, [id, `${id}@example.com`, role]);
  await db.run(`insert into auth_sessions (id, token_hash, user_id, created_at_ms, expires_at_ms) values (?, ?, ?, ?, ?)`, [`s-${id}`, hashSessionToken(token), id, now, now + 86_400_000]);
  return `wsr_session=${token}`;
}

/** Opens the victim's event stream; resolves once it is connected, with a promise of the time it ends. */
async function openStream(cookie: string): Promise<{ ended: Promise<number> }> {
  const res = await fetch(`${BASE}/api/v1/system/events`, { headers: { cookie } });
  if (res.status !== 200) throw new Error(`events answered ${res.status}`);
  const reader = res.body!.getReader();
  let text = "";
  while (!text.includes(": connected")) {
    const part = await reader.read();
    if (part.done) throw new Error("stream ended before it connected");
    text += new TextDecoder().decode(part.value);
  }
  const ended = (async () => {
    for (let part = await reader.read(); !part.done; part = await reader.read()) {
      // heartbeats until the end
    }
    return performance.now();
  })();
  return { ended };
}

async function meStatus(cookie: string): Promise<number> {
  const res = await fetch(`${BASE}/api/v1/auth/me`, { headers: { cookie } });
  await res.text();
  return res.status;
}

function stats(values: number[]): { median: number; max: number; min: number } {
  const sorted = [...values].sort((a, b) => a - b);
  return { median: sorted[Math.floor((sorted.length - 1) / 2)]!, max: sorted.at(-1)!, min: sorted[0]! };
}

/** `npm run users disable --email EMAIL` as the script runs it, on its own connection. */
async function cliDisable(databaseUrl: string, email: string): Promise<void> {
  const sink = new PassThrough();
  sink.resume();
  const code = await runUsersCommand({
    argv: ["disable", "--email", email],
    env: { ...process.env, DATABASE_URL: databaseUrl },
    stdin: process.stdin,
    stdout: sink as never,
    stderr: sink as never,
    clock: systemClock,
    log: createLogger({ level: "silent" }),
  });
  if (code !== 0) throw new Error(`users disable exited ${code}`);
}

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-revocation-"));
  const db = await openBenchDb({ dir, postgres: POSTGRES });
  const admin = await account(db, "u-admin", "admin", ADMIN_TOKEN);
  const victims: Array<{ id: string; cookie: string }> = [];
  for (let i = 0; i < 2 * ROUNDS; i += 1) victims.push({ id: `u-victim-${i}`, cookie: await account(db, `u-victim-${i}`, "viewer", `bench-victim-token-${i}`) });
  const server = await startAppServer({ port: PORT, env: { DATABASE_URL: db.url, DATA_DIR: dir } });
  try {
    // Warm-up, not counted: route modules load on their first request.
    for (let i = 0; i < 20; i++) await meStatus(admin);
    const roundTrips: number[] = [];
    for (let i = 0; i < 4 * ROUNDS; i++) {
      const t0 = performance.now();
      if ((await meStatus(admin)) !== 200) throw new Error("admin session refused");
      roundTrips.push(performance.now() - t0);
    }

    const api = { closeMs: [] as number[], answerMs: [] as number[], cookie401: 0 };
    const cli = { closeMs: [] as number[], cookie401: 0 };
    for (let round = 0; round < ROUNDS; round++) {
      const byApi = victims[2 * round]!;
      const stream = await openStream(byApi.cookie);
      const t0 = performance.now();
      const res = await fetch(`${BASE}/api/v1/users/${byApi.id}/disable`, { method: "POST", headers: { cookie: admin, origin: BASE } });
      await res.text();
      if (res.status !== 200) throw new Error(`disable answered ${res.status}`);
      api.answerMs.push(performance.now() - t0);
      api.closeMs.push((await stream.ended) - t0);
      if ((await meStatus(byApi.cookie)) === 401) api.cookie401 += 1;

      const byCli = victims[2 * round + 1]!;
      const other = await openStream(byCli.cookie);
      await cliDisable(db.url, `${byCli.id}@example.com`);
      const t1 = performance.now();
      cli.closeMs.push((await other.ended) - t1);
      if ((await meStatus(byCli.cookie)) === 401) cli.cookie401 += 1;
    }

    const results = {
      authMeRoundTripMs: stats(roundTrips),
      api: { closeMs: stats(api.closeMs), answerMs: stats(api.answerMs), cookie401: `${api.cookie401}/${ROUNDS}` },
      cli: { closeMs: stats(cli.closeMs), cookie401: `${cli.cookie401}/${ROUNDS}` },
    };
    console.log(JSON.stringify({ benchmark: "stream-revocation", engine: POSTGRES ? "postgres" : "sqlite", rounds: ROUNDS, host: { cpus: os.cpus().length, load: os.loadavg() }, results }, null, 2));
    const ms = (n: number) => n.toFixed(1);
    console.log(
      `stream-revocation (${POSTGRES ? "postgres" : "sqlite"}, load ${os.loadavg()[0]!.toFixed(1)}, ${ROUNDS} rounds): a disabled user's open stream closed ${ms(results.api.closeMs.median)} ms after the admin's disable (max ${ms(results.api.closeMs.max)}), ${ms(results.cli.closeMs.median)} ms after npm run users disable committed (max ${ms(results.cli.closeMs.max)}; re-check every 500 ms); their cookie answered 401 in ${results.api.cookie401} and ${results.cli.cookie401}; GET /auth/me round trip median ${ms(results.authMeRoundTripMs.median)} ms (target: closed < 1000 ms)`,
    );
  } finally {
    await server.stop();
    await db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
