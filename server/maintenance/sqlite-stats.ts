import "server-only";
import fs from "node:fs";
import type { Sqlite } from "@/server/db/client";
import type { DatabaseStats, TableStats } from "@/lib/database/api";
import { statement } from "@/server/db/statements";
import { readInThread } from "./sqlite-thread";

/**
 * Database footprint from metadata only (MaintenanceStore.databaseStats).
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
const PAYLOAD_TABLE = "messages";

type SchemaRow = { name: string; type: "table" | "index"; tbl_name: string };
type BtreeUsage = { bytes: number; leafCells: number; allCells: number };
type Pages = { pageSize: number; pageCount: number; freePages: number };
type Plan = { schema: SchemaRow[]; walked: string[]; payloadRowsIndex: string | null };

function fileSize(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;
  }
}

function hasDbstat(sqlite: Sqlite): boolean {
  return statement(sqlite, "select 1 from pragma_compile_options where compile_options = 'ENABLE_DBSTAT_VTAB'").get() !== undefined;
}

const PAGES_SQL = "select page_size as pageSize, page_count as pageCount, freelist_count as freePages from pragma_page_size, pragma_page_count, pragma_freelist_count";

const BTREE_SQL = `select coalesce(sum(pgsize), 0) as bytes,
        coalesce(sum(case when pagetype = 'leaf' then ncell else 0 end), 0) as leafCells,
        coalesce(sum(ncell), 0) as allCells
 from dbstat where name = ?`;

/** Which b-trees to walk: every one except the payload table's own. Cheap schema reads only. */
function planWalk(sqlite: Sqlite): Plan {
  const schema = statement(sqlite, "select name, type, tbl_name from sqlite_schema where rootpage > 0 and type in ('table', 'index') order by name").all() as SchemaRow[];
  const walked = ["sqlite_schema", ...schema.filter((row) => !(row.type === "table" && row.name === PAYLOAD_TABLE)).map((row) => row.name)];
  // A non-partial index has exactly one entry per row of its table.
  const indexes = statement(sqlite, "select name, partial from pragma_index_list(?)").all(PAYLOAD_TABLE) as { name: string; partial: number }[];
  return { schema, walked, payloadRowsIndex: indexes.find((index) => index.partial === 0)?.name ?? null };
}

function assemble(plan: Plan, usage: Map<string, BtreeUsage>, usedBytes: number): TableStats[] {
  const walkedBytes = [...usage.values()].reduce((sum, u) => sum + u.bytes, 0);
  const tables: TableStats[] = [];
  for (const row of plan.schema) {
    if (row.type !== "table") continue;
    const indexBytes = plan.schema
      .filter((s) => s.type === "index" && s.tbl_name === row.name)
      .reduce((sum, s) => sum + (usage.get(s.name)?.bytes ?? 0), 0);
    if (row.name === PAYLOAD_TABLE) {
      const rows = plan.payloadRowsIndex ? (usage.get(plan.payloadRowsIndex)?.allCells ?? 0) : 0;
      const tableBytes = Math.max(0, usedBytes - walkedBytes);
      tables.push({ name: row.name, rows, tableBytes, indexBytes, totalBytes: tableBytes + indexBytes, bytesMethod: "remainder" });
    } else {
      const own = usage.get(row.name) ?? { bytes: 0, leafCells: 0, allCells: 0 };
      tables.push({ name: row.name, rows: own.leafCells, tableBytes: own.bytes, indexBytes, totalBytes: own.bytes + indexBytes, bytesMethod: "dbstat" });
    }
  }
  return tables.sort((a, b) => b.totalBytes - a.totalBytes || a.name.localeCompare(b.name));
}

/**
 * One consistent read of the footprint: the page counts and every dbstat
 * walk run in a single read transaction on a worker thread (its own
 * read-only connection), so a walk over large indexes does not hold up
 * HTTP handling. The live connection only answers the cheap schema reads.
 */
export async function readDatabaseStats(options: { sqlite: Sqlite; dbFile: string }): Promise<DatabaseStats> {
  const { sqlite, dbFile } = options;
  const dbstat = hasDbstat(sqlite);
  const plan = dbstat ? planWalk(sqlite) : null;
  const statements = [{ sql: PAGES_SQL, params: [] as unknown[] }, ...(plan?.walked ?? []).map((name) => ({ sql: BTREE_SQL, params: [name] }))];
  const [pagesRows, ...walks] = (await readInThread(dbFile, statements)) as [Pages[], ...BtreeUsage[][]];
  const pages = pagesRows[0] ?? { pageSize: 0, pageCount: 0, freePages: 0 };
  let tables: TableStats[] | null = null;
  if (plan) {
    const usage = new Map(plan.walked.map((name, i) => [name, walks[i]?.[0] ?? { bytes: 0, leafCells: 0, allCells: 0 }]));
    tables = assemble(plan, usage, (pages.pageCount - pages.freePages) * pages.pageSize);
  }
  return {
    fileBytes: fileSize(dbFile),
    walBytes: fileSize(`${dbFile}-wal`),
    ...pages,
    freeBytes: pages.freePages * pages.pageSize,
    tables,
  };
}
