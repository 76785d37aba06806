// The COPY text reader (copy-text.ts) against an independent writer of the
// format (PostgreSQL's documented escapes, written here from the rules, with
// every optional escape form a writer may use), on random bytes of any value
// split into random chunks: every kept row comes back byte for byte, rows
// not asked for are dropped, and lines outside the table's COPY block are
// ignored.
import { describe, expect, it } from "vitest";
import { prng } from "../reducer/hostile-rows-test-support";
import { copyHeaderColumns, copyRows, decodeCopyField } from "./copy-text";

/** One field as COPY text; `style` picks among the forms a writer may use for the same byte. */
function encodeField(value: Buffer | null, rand: () => number): Buffer {
  if (value === null) return Buffer.from("\\N");
  const out: number[] = [];
  const push = (text: string) => out.push(...Buffer.from(text, "latin1"));
  for (const byte of value) {
    const style = rand();
    if (byte === 0x5c) push("\\\\");
    else if (byte === 0x0a) push(style < 0.5 ? "\\n" : "\\012");
    else if (byte === 0x0d) push(style < 0.5 ? "\\r" : "\\x0d");
    else if (byte === 0x09) push(style < 0.5 ? "\\t" : "\\011");
    else if (byte === 0x08 && style < 0.5) push("\\b");
    else if (byte === 0x0c && style < 0.5) push("\\f");
    else if (byte === 0x0b && style < 0.5) push("\\v");
    else if (style < 0.1) push(`\\${byte.toString(8).padStart(3, "0")}`);
    else if (style < 0.15) push(`\\x${byte.toString(16).padStart(2, "0")}`);
    else if (style < 0.2 && /[A-Za-z]/.test(String.fromCharCode(byte)) && !"bfnrtvNx0123456789".includes(String.fromCharCode(byte))) push(`\\${String.fromCharCode(byte)}`);
    else out.push(byte);
  }
  return Buffer.from(out);
}

function randomBytes(rand: () => number, max: number): Buffer {
  const length = Math.floor(rand() * max);
  const specials = [0x5c, 0x0a, 0x0d, 0x09, 0x08, 0x0c, 0x0b, 0xff, 0xc3, 0x4e, 0x2e];
  return Buffer.from(Array.from({ length }, () => (rand() < 0.3 ? specials[Math.floor(rand() * specials.length)]! : Math.floor(rand() * 256))));
}

async function* chunks(data: Buffer, rand: () => number): AsyncGenerator<Buffer> {
  let pos = 0;
  while (pos < data.length) {
    const size = 1 + Math.floor(rand() * (rand() < 0.5 ? 8 : 4000));
    yield data.subarray(pos, pos + size);
    pos += size;
  }
}

describe("COPY text reader", () => {
  it("reads the header's columns, quoted or not, of the named table only", () => {
    expect(copyHeaderColumns('COPY public.messages (rowid, id, "type", metadata) FROM stdin;', "messages")).toEqual(["rowid", "id", "type", "metadata"]);
    expect(copyHeaderColumns("COPY messages (id) FROM stdin;", "messages")).toEqual(["id"]);
    expect(copyHeaderColumns("COPY public.messages_fts (id) FROM stdin;", "messages")).toBeNull();
    expect(copyHeaderColumns("-- COPY public.messages (id) FROM stdin;", "messages")).toBeNull();
  });

  it("decodes every escape form and \\N", () => {
    const decode = (text: string) => {
      const line = Buffer.from(text, "latin1");
      return decodeCopyField(line, 0, line.length);
    };
    expect(decode("\\N")).toBeNull();
    expect(decode("a\\\\b\\nc\\td\\re\\bf\\fg\\vh")!.toString("latin1")).toBe("a\\b\nc\td\re\bf\fg\vh");
    expect(decode("\\101\\60\\0z")!.toString("latin1")).toBe("A0\0z");
    expect(decode("\\x41\\x4a\\x4")!.toString("latin1")).toBe("AJ\x04");
    expect(decode("\\q\\.")!.toString("latin1")).toBe("q.");
    expect(decode("\xff\xfe")!).toEqual(Buffer.from([0xff, 0xfe]));
  });

  for (const seed of [1, 2, 3, 4, 5, 6]) {
    it(`random rows of random bytes in random chunks come back byte for byte (seed ${seed})`, async () => {
      const rand = prng(seed * 7919);
      const rows = Array.from({ length: 300 }, (_, i) => ({
        id: `m-${i}-${randomBytes(rand, 4).toString("hex")}`,
        type: rand() < 0.5 ? "tool_execute" : "tool\tedit\\x",
        metadata: rand() < 0.1 ? null : randomBytes(rand, rand() < 0.1 ? 20_000 : 300),
      }));
      const wanted = new Set(rows.filter(() => rand() < 0.3).map((row) => row.id));
      const line = (fields: Array<Buffer | null>) => Buffer.concat([...fields.flatMap((f, i) => (i === 0 ? [encodeField(f, rand)] : [Buffer.from("\t"), encodeField(f, rand)])), Buffer.from("\n")]);
      const script = Buffer.concat([
        Buffer.from("--\n-- PostgreSQL database dump\n--\n\nCOPY public.turns (id, session_id) FROM stdin;\nm-1\tx\n\\.\n\n"),
        Buffer.from('COPY public.messages (rowid, id, "type", metadata) FROM stdin;\n'),
        ...rows.map((row, i) => line([Buffer.from(String(i + 1)), Buffer.from(row.id), Buffer.from(row.type), row.metadata])),
        Buffer.from("\\.\n\nCOPY public.tasks (id) FROM stdin;\nm-0\n\\.\n"),
      ]);
      const seen: Array<{ id: string; type: string; metadata: Buffer | null }> = [];
      for await (const row of copyRows(chunks(script, rand), { table: "messages", keyColumn: "id", keep: (id) => wanted.has(id) })) {
        seen.push({ id: row.get("id")!.toString("latin1"), type: row.get("type")!.toString("latin1"), metadata: row.get("metadata") ?? null });
      }
      const expected = rows.filter((row) => wanted.has(row.id));
      expect(seen.map((row) => row.id)).toEqual(expected.map((row) => row.id));
      seen.forEach((row, i) => {
        expect(row.type).toBe(expected[i]!.type);
        if (expected[i]!.metadata === null) expect(row.metadata).toBeNull();
        else expect(row.metadata!.equals(expected[i]!.metadata!), row.id).toBe(true);
      });
    });
  }
});
