// PostgreSQL's client programs (pg_dump, pg_restore, vacuumdb), run as child
// processes: a dump or a VACUUM of a large database runs for minutes,
// outside the app's process. The connection reaches them as `--dbname`
// without its password: a process's argv is readable by every user of the
// machine (ps, /proc/PID/cmdline), so the password goes into a passfile of
// its own (mode 0600 in a 0700 folder, PGPASSFILE), removed when the child
// exits. libpq's error text names host and user, never the password, and
// only the exit code and the first line of stderr are reported.
import "server-only";
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

export class PgToolError extends Error {
  constructor(
    readonly tool: string,
    readonly exitCode: number | null,
    detail: string,
  ) {
    super(`${tool} failed (exit ${exitCode ?? "signal"}): ${detail}`);
    this.name = "PgToolError";
  }
}

export type PgToolRun = { stdout: string; stderr: string };
export type PgTool = "pg_dump" | "pg_restore" | "vacuumdb" | "psql";

/** A connection URL split into what may be shown (argv) and the secret. */
export type SplitConnection = { url: string; password: string | null };

function decode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * Takes the password out of a postgres:// URL: the `user:password@` of the
 * authority and any `password=` query parameter. Everything else (host,
 * port, user, database, sslmode, host=/socket) stays for the command line.
 */
export function splitConnectionUrl(url: string): SplitConnection {
  const scheme = /^postgres(?:ql)?:\/\//i.exec(url);
  if (!scheme) return { url, password: null };
  const rest = url.slice(scheme[0].length);
  let end = rest.length;
  for (const stop of ["/", "?", "#"]) {
    const at = rest.indexOf(stop);
    if (at >= 0 && at < end) end = at;
  }
  let authority = rest.slice(0, end);
  let tail = rest.slice(end);
  let password: string | null = null;
  const at = authority.lastIndexOf("@");
  if (at >= 0) {
    const userinfo = authority.slice(0, at);
    const colon = userinfo.indexOf(":");
    if (colon >= 0) {
      password = decode(userinfo.slice(colon + 1));
      authority = `${userinfo.slice(0, colon)}@${authority.slice(at + 1)}`;
    }
  }
  const query = tail.indexOf("?");
  if (query >= 0) {
    const hash = tail.indexOf("#", query);
    const search = tail.slice(query + 1, hash < 0 ? undefined : hash);
    const kept: string[] = [];
    for (const pair of search.split("&")) {
      const eq = pair.indexOf("=");
      const key = decode(eq < 0 ? pair : pair.slice(0, eq));
      if (key === "password") password = decode(eq < 0 ? "" : pair.slice(eq + 1));
      else if (pair !== "") kept.push(pair);
    }
    tail = `${tail.slice(0, query)}${kept.length > 0 ? `?${kept.join("&")}` : ""}${hash < 0 ? "" : tail.slice(hash)}`;
  }
  return { url: `${scheme[0]}${authority}${tail}`, password };
}

/** One passfile line matching any host, port, database and user: `\` and `:` escaped as libpq reads them. */
function passfileLine(password: string): string {
  return `*:*:*:*:${password.replace(/\\/g, "\\\\").replace(/:/g, "\\:")}\n`;
}

/** Writes a private passfile; the caller removes its folder. */
function writePassfile(password: string): { file: string; dir: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "wsr-pgpass-"));
  fs.chmodSync(dir, 0o700);
  const file = path.join(dir, "pgpass");
  const fd = fs.openSync(file, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL, 0o600);
  try {
    fs.fchmodSync(fd, 0o600);
    fs.writeSync(fd, passfileLine(password));
  } finally {
    fs.closeSync(fd);
  }
  return { file, dir };
}

export type RunPgToolOptions = {
  /** The connection: passed as --dbname without its password. */
  connection?: string;
  /** Arguments after --dbname. */
  args: readonly string[];
  /** Added to the child's environment (PGOPTIONS and the like). */
  env?: Record<string, string>;
};

/** Runs one client program; rejects with PgToolError on a non-zero exit. */
export function runPgTool(tool: PgTool, options: RunPgToolOptions): Promise<PgToolRun> {
  const split = options.connection === undefined ? null : splitConnectionUrl(options.connection);
  const args = [...(split ? [`--dbname=${split.url}`] : []), ...options.args];
  const env: NodeJS.ProcessEnv = { ...process.env, ...options.env };
  // A password from the server's own environment would reach the child anyway; one from the URL goes only through the file.
  let passfile: { file: string; dir: string } | null = null;
  if (split?.password) {
    passfile = writePassfile(split.password);
    env.PGPASSFILE = passfile.file;
    delete env.PGPASSWORD;
  }
  const cleanup = () => {
    if (passfile) fs.rmSync(passfile.dir, { recursive: true, force: true });
  };
  return new Promise<PgToolRun>((resolve, reject) => {
    const done = (error: Error | null, stdout: string, stderr: string) => {
      cleanup();
      if (error) {
        const raw = (error as unknown as { code?: unknown }).code;
        const code = typeof raw === "number" ? raw : null;
        reject(new PgToolError(tool, code, String(stderr).trim().split("\n")[0] ?? ""));
        return;
      }
      resolve({ stdout: String(stdout), stderr: String(stderr) });
    };
    try {
      execFile(tool, args, { env, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => done(error, String(stdout), String(stderr)));
    } catch (error) {
      done(error as Error, "", "");
    }
  });
}
