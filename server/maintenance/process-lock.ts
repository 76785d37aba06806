import "server-only";
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import type { MaintenanceKind } from "./guard";

/**
 * The cross-process half of the maintenance guard: a lock file beside the
 * database (`<db>.maintenance.lock`), created with O_EXCL so exactly one
 * process (the server or an operator CLI) holds it. The in-process guard
 * keeps the operations of one runtime apart; this file keeps two processes
 * on the same database apart. It holds ids and a kind only.
 *
 * A process that dies while holding it leaves the file behind: a holder whose
 * pid no longer exists on this host is stale and its file is taken over. A
 * pid can be reused (a container restarts its server as the same pid), so a
 * holder also names its process incarnation (`token`), and a pid whose
 * process started after the lock was taken is not the holder.
 */
export type ProcessLockHolder = { id: string; owner: string; kind: MaintenanceKind; pid: number; token: string; host: string; acquiredAt: string };

/** This process's incarnation: the same pid after a restart is another holder. */
const PROCESS_TOKEN = randomUUID();
/** Linux reports process start in clock ticks; 100 per second on every usual kernel. */
const CLOCK_TICKS_PER_SECOND = 100;
/** Slack between a process's start and its first lock (tick rounding). */
const START_SLACK_MS = 2000;

/** When `pid` started (epoch ms), from /proc; null where that is not readable. */
function processStartMs(pid: number): number | null {
  try {
    const btime = /^btime (\d+)$/m.exec(fs.readFileSync("/proc/stat", "utf8"));
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    // Field 22 (starttime) counted after the parenthesised command name.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ticks = Number(fields[19]);
    if (!btime || !Number.isFinite(ticks)) return null;
    return Number(btime[1]) * 1000 + (ticks / CLOCK_TICKS_PER_SECOND) * 1000;
  } catch {
    return null;
  }
}

export type ProcessLock = {
  /** True when the lock file was created for this holder. */
  tryTake(holder: Omit<ProcessLockHolder, "pid" | "token" | "host" | "acquiredAt">): boolean;
  /** Removes the file if it is still this id's. */
  release(id: string): void;
  /** The live holder recorded in the file, or null (none, or stale). */
  holder(): ProcessLockHolder | null;
};

export function processLockFileFor(dbFile: string): string {
  return `${dbFile}.maintenance.lock`;
}

export function createProcessLock(options: { file: string; now?: () => number }): ProcessLock {
  const { file } = options;
  const now = options.now ?? Date.now;

  function read(): ProcessLockHolder | null {
    try {
      const parsed = JSON.parse(fs.readFileSync(file, "utf8")) as Partial<ProcessLockHolder>;
      if (typeof parsed.id !== "string" || typeof parsed.pid !== "number" || typeof parsed.kind !== "string") return null;
      return parsed as ProcessLockHolder;
    } catch {
      return null;
    }
  }

  function isLive(holder: ProcessLockHolder): boolean {
    // Another host's pid cannot be probed from here: treat it as live.
    if (holder.host !== os.hostname()) return true;
    if (holder.pid === process.pid) return holder.token === PROCESS_TOKEN;
    try {
      process.kill(holder.pid, 0);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EPERM") return false;
    }
    const started = processStartMs(holder.pid);
    const acquired = Date.parse(holder.acquiredAt);
    // The pid is alive, but a process that started after the lock was taken
    // is a reuse of the pid, not the holder.
    return started === null || !Number.isFinite(acquired) || started <= acquired + START_SLACK_MS;
  }

  function create(holder: ProcessLockHolder): boolean {
    let fd: number;
    try {
      fd = fs.openSync(file, "wx", 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
      throw error;
    }
    try {
      fs.writeSync(fd, JSON.stringify(holder));
    } finally {
      fs.closeSync(fd);
    }
    return true;
  }

  function removeStale(): void {
    const current = read();
    // A half-written file (the creator is between open and write) reads as
    // null: leave it, the next attempt sees the finished content.
    if (!current || isLive(current)) return;
    // Move it aside first and check it is still the stale holder we read, so
    // a fresh lock that replaced it in between is put back untouched.
    const aside = `${file}.stale-${process.pid}-${now()}`;
    try {
      fs.renameSync(file, aside);
    } catch {
      return;
    }
    let moved: ProcessLockHolder | null = null;
    try {
      moved = JSON.parse(fs.readFileSync(aside, "utf8")) as ProcessLockHolder;
    } catch {
      moved = null;
    }
    if (moved && moved.id !== current.id) {
      try {
        fs.linkSync(aside, file);
      } catch {
        // Someone took the lock meanwhile; the moved holder lost its file and
        // its own release is a no-op. Rare: two takeovers of one stale file.
      }
    }
    fs.rmSync(aside, { force: true });
  }

  return {
    tryTake(request) {
      const holder: ProcessLockHolder = { ...request, pid: process.pid, token: PROCESS_TOKEN, host: os.hostname(), acquiredAt: new Date(now()).toISOString() };
      if (create(holder)) return true;
      removeStale();
      return create(holder);
    },
    release(id) {
      const current = read();
      if (current?.id === id && current.token === PROCESS_TOKEN) fs.rmSync(file, { force: true });
    },
    holder() {
      const current = read();
      return current && isLive(current) ? current : null;
    },
  };
}
