import "server-only";
import fs from "node:fs";
import type { Sqlite } from "@/server/db/client";

/**
 * Database footprint from metadata only.
 *
 * File-level numbers come from stat(2) and pragmas (O(1)). Per-table numbers
 * come from the `dbstat` virtual table restricted with `name = ?`, which
 * walks the pages of that one b-tree and reads page headers and cell counts,
 * never decodes a column. The messages table b-tree — where the payload
 * bodies and their overflow chains live — is never walked at all:
 *   - its bytes are the remainder: used pages minus every other b-tree;
 *   - its row count is the entry count of a full (non-partial) index on it
 *     (messages_id_uidx), i.e. a walk of a small index b-tree.
 * So opening the Database page never reads a message body, and the cost is
 * proportional to the size of the indexes and the small tables. Other
 * tables are walked page by page (their overflow pages too); they are small
 * next to messages. Without dbstat compiled in, only file-level numbers are
 * reported.
 */
export const PAYLOAD_TABLE = "messages";

export type TableStats = {
  name: string;
  rows: number;
  tableBytes: number;
  indexBytes: number;
  totalBytes: number;
  /** How tableBytes was obtained: walking the b-tree, or as the remainder. */
  bytesMethod: "dbstat" | "remainder";
};

export type DatabaseStats = {
  fileBytes: number;
  walBytes: number;
  pageSize: number;
  pageCount: number;
  freePages: number;
  freeBytes: number;
  /** Null when the SQLite build has no dbstat virtual table. */
  tables: TableStats[] | null;
};

type SchemaRow = { name: string; type: "table" | "index"; tbl_name: string };
type BtreeUsage = { bytes: number; leafCells: number; allCells: number };

function fileSize(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;
  }
}

export function hasDbstat(sqlite: Sqlite): boolean {
  return sqlite.prepare("select 1 from pragma_compile_options where compile_options = 'ENABLE_DBSTAT_VTAB'").get() !== undefined;
}

function btreeUsage(sqlite: Sqlite, name: string): BtreeUsage {
  const row = sqlite
    .prepare(
      `select coalesce(sum(pgsize), 0) as bytes,
              coalesce(sum(case when pagetype = 'leaf' then ncell else 0 end), 0) as leafCells,
              coalesce(sum(ncell), 0) as allCells
       from dbstat where name = ?`,
    )
    .get(name) as BtreeUsage;
  return row;
}

/** A non-partial index whose entry count equals the table's row count. */
function fullIndexOf(sqlite: Sqlite, table: string): string | null {
  const list = sqlite.prepare("select name, partial from pragma_index_list(?)").all(table) as { name: string; partial: number }[];
  return list.find((index) => index.partial === 0)?.name ?? null;
}

function tableStats(sqlite: Sqlite, usedBytes: number): TableStats[] {
  const schema = sqlite
    .prepare("select name, type, tbl_name from sqlite_schema where rootpage > 0 and type in ('table', 'index') order by name")
    .all() as SchemaRow[];
  const usage = new Map<string, BtreeUsage>();
  for (const row of schema) {
    if (row.type === "table" && row.name === PAYLOAD_TABLE) continue; // never walk the payload b-tree
    usage.set(row.name, btreeUsage(sqlite, row.name));
  }
  const schemaBytes = btreeUsage(sqlite, "sqlite_schema").bytes;
  const walked = [...usage.values()].reduce((sum, u) => sum + u.bytes, 0) + schemaBytes;
  const tables: TableStats[] = [];
  for (const row of schema) {
    if (row.type !== "table") continue;
    const indexBytes = schema
      .filter((s) => s.type === "index" && s.tbl_name === row.name)
      .reduce((sum, s) => sum + (usage.get(s.name)?.bytes ?? 0), 0);
    if (row.name === PAYLOAD_TABLE) {
      const index = fullIndexOf(sqlite, row.name);
      const rows = index ? (usage.get(index)?.allCells ?? 0) : 0;
      const tableBytes = Math.max(0, usedBytes - walked);
      tables.push({ name: row.name, rows, tableBytes, indexBytes, totalBytes: tableBytes + indexBytes, bytesMethod: "remainder" });
    } else {
      const own = usage.get(row.name)!;
      tables.push({ name: row.name, rows: own.leafCells, tableBytes: own.bytes, indexBytes, totalBytes: own.bytes + indexBytes, bytesMethod: "dbstat" });
    }
  }
  return tables.sort((a, b) => b.totalBytes - a.totalBytes || a.name.localeCompare(b.name));
}

/** One consistent read of the footprint (a single read transaction). */
export function collectDatabaseStats(options: { sqlite: Sqlite; dbFile: string }): DatabaseStats {
  const { sqlite, dbFile } = options;
  const read = sqlite.transaction(() => {
    const pageSize = sqlite.pragma("page_size", { simple: true }) as number;
    const pageCount = sqlite.pragma("page_count", { simple: true }) as number;
    const freePages = sqlite.pragma("freelist_count", { simple: true }) as number;
    const usedBytes = (pageCount - freePages) * pageSize;
    const tables = hasDbstat(sqlite) ? tableStats(sqlite, usedBytes) : null;
    return { pageSize, pageCount, freePages, freeBytes: freePages * pageSize, tables };
  });
  const pages = read();
  return { fileBytes: fileSize(dbFile), walBytes: fileSize(`${dbFile}-wal`), ...pages };
}
