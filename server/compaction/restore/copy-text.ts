// PostgreSQL's COPY text format, as pg_restore writes a table's data: one
// row per line, fields separated by tabs, `\N` for NULL and backslash
// escapes for the bytes that would break the framing (\\ \b \f \n \r \t
// \v, \ddd octal, \xhh hex, \c for any other c). A raw newline always ends
// a row (one inside a value is escaped), so a line splitter on 0x0A finds
// rows without decoding them. Everything here works on bytes: the stored
// text comes back byte for byte, whatever the archive's encoding.

/** The `COPY schema.table (col, ...) FROM stdin;` header's column names, or null when the line is not a COPY header of `table`. */
export function copyHeaderColumns(line: string, table: string): string[] | null {
  const match = /^COPY\s+(?:"?[\w$]+"?\.)?"?([\w$]+)"?\s*\((.*)\)\s+FROM\s+stdin;\s*$/.exec(line);
  if (!match || match[1] !== table) return null;
  return match[2]!.split(",").map((name) => name.trim().replace(/^"(.*)"$/, "$1").replaceAll('""', '"'));
}

/** Start and end offsets of each tab-separated field of a data line. */
export function fieldSpans(line: Buffer): Array<[number, number]> {
  const spans: Array<[number, number]> = [];
  let start = 0;
  for (;;) {
    const tab = line.indexOf(0x09, start);
    if (tab === -1) {
      spans.push([start, line.length]);
      return spans;
    }
    spans.push([start, tab]);
    start = tab + 1;
  }
}

const SIMPLE: Record<number, number> = { 0x62: 0x08, 0x66: 0x0c, 0x6e: 0x0a, 0x72: 0x0d, 0x74: 0x09, 0x76: 0x0b };
const isOctal = (byte: number | undefined) => byte !== undefined && byte >= 0x30 && byte <= 0x37;
const hexValue = (byte: number | undefined): number => {
  if (byte === undefined) return -1;
  if (byte >= 0x30 && byte <= 0x39) return byte - 0x30;
  if (byte >= 0x61 && byte <= 0x66) return byte - 0x57;
  if (byte >= 0x41 && byte <= 0x46) return byte - 0x37;
  return -1;
};

/** One field's bytes with its escapes decoded; null for `\N`. */
export function decodeCopyField(line: Buffer, start: number, end: number): Buffer | null {
  if (end - start === 2 && line[start] === 0x5c && line[start + 1] === 0x4e) return null;
  const first = line.indexOf(0x5c, start);
  if (first === -1 || first >= end) return line.subarray(start, end);
  const out = Buffer.allocUnsafe(end - start);
  let n = line.copy(out, 0, start, first);
  let i = first;
  while (i < end) {
    const byte = line[i]!;
    if (byte !== 0x5c || i + 1 >= end) {
      out[n++] = byte;
      i += 1;
      continue;
    }
    const next = line[i + 1]!;
    if (SIMPLE[next] !== undefined) {
      out[n++] = SIMPLE[next]!;
      i += 2;
    } else if (isOctal(next)) {
      let value = 0;
      let j = i + 1;
      while (j < end && j < i + 4 && isOctal(line[j])) value = value * 8 + (line[j++]! - 0x30);
      out[n++] = value & 0xff;
      i = j;
    } else if (next === 0x78 && hexValue(line[i + 2]) >= 0 && i + 2 < end) {
      let value = hexValue(line[i + 2]);
      let j = i + 3;
      if (j < end && hexValue(line[j]) >= 0) value = value * 16 + hexValue(line[j++]);
      out[n++] = value;
      i = j;
    } else {
      out[n++] = next;
      i += 2;
    }
  }
  return out.subarray(0, n);
}

export type CopyRowFilter = {
  table: string;
  /** The column whose value decides whether a row is kept (read before the rest of the line is kept). */
  keyColumn: string;
  keep(key: string): boolean;
};

const COPY_END = Buffer.from("\\.");

/**
 * The rows of `filter.table` in a pg_restore script stream whose key column
 * passes `filter.keep`, each as a map of column name to bytes (null for
 * NULL). Rows it drops are skipped as they stream: only the current kept
 * row is ever held whole.
 */
export async function* copyRows(stream: AsyncIterable<Buffer>, filter: CopyRowFilter): AsyncGenerator<Map<string, Buffer | null>> {
  let columns: string[] | null = null;
  let keyIndex = -1;
  let done = false;
  // The line being read: its parts so far, the tabs seen, and whether it is kept (null: not decided yet).
  let parts: Buffer[] = [];
  let tabs = 0;
  let kept: boolean | null = null;

  const decide = () => {
    const line = Buffer.concat(parts);
    parts = [line];
    const spans = fieldSpans(line);
    const span = spans[keyIndex]!;
    const key = decodeCopyField(line, span[0], span[1]);
    kept = key !== null && filter.keep(key.toString("utf8"));
    if (!kept) parts = [];
  };

  for await (const chunk of stream) {
    if (done) continue; // drain: the tool's exit must not block on a full pipe
    let pos = 0;
    while (pos < chunk.length && !done) {
      const newline = chunk.indexOf(0x0a, pos);
      const end = newline === -1 ? chunk.length : newline;
      const segment = chunk.subarray(pos, end);
      pos = newline === -1 ? chunk.length : newline + 1;
      if (kept !== false) {
        if (columns !== null && kept === null) {
          for (let i = segment.indexOf(0x09); i !== -1 && tabs <= keyIndex; i = segment.indexOf(0x09, i + 1)) tabs += 1;
          parts.push(segment);
          if (tabs > keyIndex) decide();
        } else {
          parts.push(segment);
        }
      }
      if (newline === -1) continue;
      // A whole line.
      if (columns === null) {
        const header = copyHeaderColumns(Buffer.concat(parts).toString("utf8"), filter.table);
        if (header) {
          columns = header;
          keyIndex = header.indexOf(filter.keyColumn);
          if (keyIndex === -1) throw new Error(`the archive's ${filter.table} rows have no ${filter.keyColumn} column`);
        }
      } else if (kept === null) {
        // The end marker, or a line with fewer fields than the key's position (not a row).
        if (Buffer.concat(parts).equals(COPY_END)) done = true;
      } else if (kept) {
        const line = Buffer.concat(parts);
        const row = new Map<string, Buffer | null>();
        fieldSpans(line).forEach(([start, stop], i) => row.set(columns![i] ?? `#${i}`, decodeCopyField(line, start, stop)));
        yield row;
      }
      parts = [];
      tabs = 0;
      kept = null;
    }
  }
}
