// No "server-only" here: server/log.ts (used by CLI scripts too) feeds it.
import { LOG_LEVEL_VALUES, type LogEntry, type LogLevel } from "@/lib/logs/api";
import { sanitizeLogRecord } from "./sanitize";

export const LOG_RING_CAPACITY = 500;

/**
 * The most recent log lines, bounded: once full, each new line overwrites the
 * oldest. Lines are sanitized on the way in, so what is kept is already
 * what the log viewer may show.
 */
export class LogRing {
  readonly capacity: number;
  private readonly slots: (LogEntry | undefined)[];
  private next = 0;
  private seq = 0;

  constructor(options: { capacity?: number } = {}) {
    this.capacity = Math.max(1, options.capacity ?? LOG_RING_CAPACITY);
    this.slots = new Array<LogEntry | undefined>(this.capacity);
  }

  /** Records one pino JSON line; anything unparsable is ignored. */
  recordLine(line: string): void {
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch {
      return;
    }
    const entry = sanitizeLogRecord(record);
    if (!entry) return;
    this.seq += 1;
    this.slots[this.next] = { seq: this.seq, ...entry };
    this.next = (this.next + 1) % this.capacity;
  }

  /** Newest first, at or above `level`, at most `limit`. */
  list(options: { level?: LogLevel; limit?: number } = {}): LogEntry[] {
    const min = LOG_LEVEL_VALUES[options.level ?? "trace"];
    const limit = options.limit ?? this.capacity;
    const out: LogEntry[] = [];
    for (let i = 1; i <= this.capacity && out.length < limit; i++) {
      const entry = this.slots[(this.next - i + this.capacity) % this.capacity];
      if (!entry) break;
      if (LOG_LEVEL_VALUES[entry.level] >= min) out.push(entry);
    }
    return out;
  }

  /** A pino destination: each write is one or more newline-terminated JSON lines. */
  destination(): { write: (chunk: string) => void } {
    return {
      write: (chunk: string) => {
        for (const line of String(chunk).split("\n")) if (line.trim()) this.recordLine(line);
      },
    };
  }
}
