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

/**
 * A holder no process here can check: its file names another host (a
 * machine sharing the folder, or a container that has since been replaced
 * under a new hostname). It is kept as live (its process may well run), so
 * it is reported to the admin, who can clear it. Only checked fields: the
 * file may have been planted.
 */
export type UnverifiableLock = { id: string; kind: MaintenanceKind | null; host: string | null; acquiredAt: string | null };

const KNOWN_KINDS: readonly MaintenanceKind[] = ["backup", "restore", "reset", "vacuum", "optimize", "compaction", "payload_restore"];
/** A DNS name is at most 253 characters; anything else in a host field is shown as unreadable. */
const HOST_PATTERN = /^[A-Za-z0-9._-]{1,253}$/;

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

/**
 * The maintenance guard's lock shared with other processes: a file beside
 * the SQLite database, or an advisory lock on PostgreSQL (maintenance-lock.ts).
 */
export type ProcessLock = {
  /** True when the lock was taken for this holder. */
  tryTake(holder: Omit<ProcessLockHolder, "pid" | "token" | "host" | "acquiredAt">): Promise<boolean>;
  /** Gives the lock up if it is still this id's (at once in this process; another process sees it free right after). */
  release(id: string): void;
  /** The live holder in another process, or null (none, or stale). */
  holder(): Promise<ProcessLockHolder | null>;
  /** The holder when it names another host (absent where a lock ends with its holder: PostgreSQL's). */
  unverifiable?(): Promise<UnverifiableLock | null>;
  /** Removes that holder's lock if it is still holder `id` of another host; true when removed. */
  clearUnverifiable?(id: string): Promise<boolean>;
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

  /** Removes the lock when its holder passes `removable`; true when this call removed it. */
  function removeIf(removable: (holder: ProcessLockHolder) => boolean): boolean {
    const current = read();
    // A half-written file (the creator is between open and write) reads as
    // null: leave it, the next attempt sees the finished content.
    if (!current || !removable(current)) return false;
    // Move it aside first and check it is still the holder we read, so a
    // fresh lock that replaced it in between is put back untouched.
    const aside = `${file}.stale-${process.pid}-${now()}`;
    try {
      fs.renameSync(file, aside);
    } catch {
      return false;
    }
    let moved: ProcessLockHolder | null = null;
    try {
      moved = JSON.parse(fs.readFileSync(aside, "utf8")) as ProcessLockHolder;
    } catch {
      moved = null;
    }
    const same = moved?.id === current.id;
    if (moved && !same) {
      try {
        fs.linkSync(aside, file);
      } catch {
        // Someone took the lock meanwhile; the moved holder lost its file and
        // its own release is a no-op. Rare: two takeovers of one stale file.
      }
    }
    fs.rmSync(aside, { force: true });
    return same;
  }

  const isForeign = (holder: ProcessLockHolder) => holder.host !== os.hostname();

  return {
    async tryTake(request) {
      const holder: ProcessLockHolder = { ...request, pid: process.pid, token: PROCESS_TOKEN, host: os.hostname(), acquiredAt: new Date(now()).toISOString() };
      if (create(holder)) return true;
      removeIf((current) => !isLive(current));
      return create(holder);
    },
    release(id) {
      const current = read();
      if (current?.id === id && current.token === PROCESS_TOKEN) fs.rmSync(file, { force: true });
    },
    async holder() {
      const current = read();
      return current && isLive(current) ? current : null;
    },
    async unverifiable() {
      const current = read();
      if (!current || !isForeign(current)) return null;
      const host = typeof current.host === "string" && HOST_PATTERN.test(current.host) ? current.host : null;
      const acquired = typeof current.acquiredAt === "string" ? Date.parse(current.acquiredAt) : NaN;
      return {
        id: current.id.slice(0, 100),
        kind: KNOWN_KINDS.includes(current.kind) ? current.kind : null,
        host,
        acquiredAt: Number.isFinite(acquired) ? new Date(acquired).toISOString() : null,
      };
    },
    async clearUnverifiable(id) {
      return removeIf((current) => isForeign(current) && current.id.slice(0, 100) === id);
    },
  };
}
