// `npm ci` compiles nothing for PostgreSQL (issue 27): the driver is
// node-postgres, pure JavaScript, so a machine without libpq-dev or a C++
// toolchain installs the PostgreSQL engine as it installs SQLite's. Read from
// the committed lock file, which is what `npm ci` installs: a package builds
// at install when the lock marks an install script (npm also records a
// binding.gyp at the package root as one, the implicit `node-gyp rebuild`).
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

type LockEntry = {
  version?: string;
  hasInstallScript?: boolean;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
};

const root = process.cwd();
const lock = JSON.parse(fs.readFileSync(path.join(root, "package-lock.json"), "utf8")) as { packages: Record<string, LockEntry> };
const manifest = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as Record<string, Record<string, unknown> | undefined>;

/** The package name of a lock key ("node_modules/a/node_modules/@b/c" -> "@b/c"). */
const nameOf = (key: string) => key.slice(key.lastIndexOf("node_modules/") + "node_modules/".length);

/** Where npm resolves `dep` from the package at `from`: its own node_modules, then each enclosing one. */
function resolve(from: string, dep: string): string | null {
  for (let dir = from; ; ) {
    const key = `${dir ? `${dir}/` : ""}node_modules/${dep}`;
    if (lock.packages[key]) return key;
    if (!dir) return null;
    const up = dir.lastIndexOf("/node_modules/");
    dir = up < 0 ? "" : dir.slice(0, up);
  }
}

/** Every lock entry the given top-level packages pull in (dependencies, optional and peer dependencies that are installed). */
function closure(names: string[]): Set<string> {
  const seen = new Set<string>();
  const queue = names.map((name) => resolve("", name)).filter((key): key is string => key !== null);
  while (queue.length > 0) {
    const key = queue.pop()!;
    if (seen.has(key)) continue;
    seen.add(key);
    const entry = lock.packages[key]!;
    for (const dep of Object.keys({ ...entry.dependencies, ...entry.optionalDependencies, ...entry.peerDependencies })) {
      const found = resolve(key, dep);
      if (found) queue.push(found);
    }
  }
  return seen;
}

const builds = Object.entries(lock.packages)
  .filter(([key, entry]) => key !== "" && entry.hasInstallScript)
  .map(([key]) => key);

// The app's PostgreSQL packages: the driver and the checkpoint saver built on it.
const POSTGRES_PACKAGES = ["pg", "@langchain/langgraph-checkpoint-postgres"];
const POSTGRES_NAME = /(^|[^a-z])(pg|postgres|postgresql|libpq)([^a-z]|$)/i;

describe("what npm ci builds", () => {
  it("[#27] no package that builds at install is PostgreSQL's: not the driver's dependencies, nothing named for it", () => {
    const postgres = closure(POSTGRES_PACKAGES);
    // The closure is real: the driver and its pure-JavaScript parts are in the lock.
    expect(postgres.has("node_modules/pg")).toBe(true);
    expect([...postgres].map(nameOf)).toEqual(expect.arrayContaining(["pg-pool", "pg-protocol", "pg-types"]));
    expect(builds.filter((key) => postgres.has(key))).toEqual([]);
    expect(builds.filter((key) => POSTGRES_NAME.test(nameOf(key)))).toEqual([]);
    // The detection sees native builds: SQLite's binding stays one.
    expect(builds).toContain("node_modules/better-sqlite3");
  });

  it("[#27] neither the lock nor package.json names pg-native or libpq", () => {
    expect(Object.keys(lock.packages).filter((key) => ["pg-native", "libpq"].includes(nameOf(key)))).toEqual([]);
    for (const section of ["dependencies", "devDependencies", "optionalDependencies", "peerDependencies", "allowScripts"]) {
      expect(Object.keys(manifest[section] ?? {}).filter((name) => ["pg-native", "libpq"].includes(name)), section).toEqual([]);
    }
  });
});
