import "server-only";
import { createHash } from "node:crypto";
import fs from "node:fs";
import fsp from "node:fs/promises";

/** Hex SHA-256 of a file; injectable so tests can count full hashes. */
export type Hasher = (file: string) => Promise<string>;

/** Streams the file through SHA-256 so a multi-GB backup never sits in memory. */
export const sha256File: Hasher = (file) =>
  new Promise((resolve, reject) => {
    const hash = createHash("sha256");
    const stream = fs.createReadStream(file, { highWaterMark: 1024 * 1024 });
    stream.on("error", reject);
    stream.on("data", (chunk) => hash.update(chunk));
    stream.on("end", () => resolve(hash.digest("hex")));
  });

/** Opens, fsyncs and closes one path. */
async function fsyncPath(target: string, flags: string): Promise<void> {
  const handle = await fsp.open(target, flags);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** fsync a directory so a rename or unlink inside it survives a crash. */
export const fsyncDir = (dir: string): Promise<void> => fsyncPath(dir, "r");

/** fsync a regular file's contents. */
export const fsyncFile = (file: string): Promise<void> => fsyncPath(file, "r+");
