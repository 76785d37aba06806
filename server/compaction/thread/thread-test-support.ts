// Builds the cleanup thread's bundle into a temp dir for the tests that run a
// slice on a real worker thread (no previous `npm run build` needed).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { buildPassThreadBundle } from "@/scripts/lib/pass-thread-bundle";

export async function buildTestBundle(): Promise<{ bundlePath: string; remove(): void }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ws-pass-thread-"));
  const bundlePath = path.join(dir, "pass-thread.cjs");
  await buildPassThreadBundle({ outFile: bundlePath });
  return { bundlePath, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}
