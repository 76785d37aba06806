import "server-only";
import { constants } from "node:fs";
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from "@/server/db/file-modes";
import { AppError } from "@/server/errors";
import { fsyncDir } from "./hash";

/**
 * A restore's copy of the backup, staged for the swap: the file that is
 * checked is the file that is renamed into place. The backup is opened once
 * (O_NOFOLLOW) and copied through that descriptor into a new file (O_EXCL,
 * O_NOFOLLOW, 0600) inside a private folder (`<db>.restore-pending/`, 0700)
 * the copy creates afresh; the new file's identity (device and inode) is
 * remembered and the descriptor kept open, and `unchanged()` compares the
 * name's current target with it right before the swap. A file put in its
 * place after the integrity check (the previous code verified
 * `<db>.restore-pending` by name and renamed whatever was there later) is
 * refused, and nothing was changed.
 */
export type StagedCopy = {
  /** The staged file's path (in the private folder). */
  readonly file: string;
  /** True while `file` is still the file this copy wrote (not swapped, not linked elsewhere). */
  unchanged(): boolean;
  /** Closes the descriptor and removes the folder with whatever is left in it. */
  discard(): Promise<void>;
};

const COPY_CHUNK_BYTES = 1024 * 1024;

async function copyThrough(from: fsp.FileHandle, to: fsp.FileHandle): Promise<void> {
  const buffer = Buffer.allocUnsafe(COPY_CHUNK_BYTES);
  let position = 0;
  for (;;) {
    const { bytesRead } = await from.read(buffer, 0, buffer.length, position);
    if (bytesRead === 0) return;
    let written = 0;
    while (written < bytesRead) written += (await to.write(buffer, written, bytesRead - written, position + written)).bytesWritten;
    position += bytesRead;
  }
}

export async function stageCopy(options: { source: string; dir: string; name: string }): Promise<StagedCopy> {
  const { dir } = options;
  // A folder (or file, or link) left at the path by an interrupted restore goes first.
  await fsp.rm(dir, { recursive: true, force: true });
  await fsp.mkdir(dir, { mode: PRIVATE_DIR_MODE });
  await fsp.chmod(dir, PRIVATE_DIR_MODE); // mkdir's mode is filtered by the umask
  const file = path.join(dir, options.name);
  let source: fsp.FileHandle;
  try {
    source = await fsp.open(options.source, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch {
    await fsp.rm(dir, { recursive: true, force: true });
    throw new AppError("not_found", "No such backup");
  }
  let target: fsp.FileHandle | null = null;
  try {
    if (!(await source.stat()).isFile()) throw new AppError("not_found", "No such backup");
    target = await fsp.open(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, PRIVATE_FILE_MODE);
    await target.chmod(PRIVATE_FILE_MODE);
    await copyThrough(source, target);
    await target.sync();
    await fsyncDir(dir);
  } catch (error) {
    await target?.close();
    await fsp.rm(dir, { recursive: true, force: true });
    throw error;
  } finally {
    await source.close();
  }
  const held = target;
  const identity = await held.stat();
  return {
    file,
    unchanged() {
      // Synchronous: the restore checks and renames with no turn of the event loop in between.
      let now: fs.Stats;
      try {
        now = fs.lstatSync(file);
      } catch {
        return false;
      }
      return now.isFile() && now.ino === identity.ino && now.dev === identity.dev && now.nlink === 1;
    },
    async discard() {
      await held.close().catch(() => {});
      await fsp.rm(dir, { recursive: true, force: true });
    },
  };
}
