// npm run build (first step): writes the cleanup slice's worker-thread bundle
// to dist/compaction-pass-thread.cjs; without it cleanup runs inline.
//   npx tsx scripts/build-pass-thread.ts [--out FILE]
import path from "node:path";
import { defaultPassThreadBundle } from "@/server/compaction/thread/thread-config";
import { defaultReadThreadBundle } from "@/server/workspace/read-thread/bundle";
import { buildPassThreadBundle, buildReadThreadBundle } from "./lib/pass-thread-bundle";

async function main() {
  const i = process.argv.indexOf("--out");
  const outFile = i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : defaultPassThreadBundle();
  await buildPassThreadBundle({ outFile });
  console.log(`pass thread bundle: ${outFile}`);
  // The read thread's bundle goes beside it (shell output and export).
  const readOut = i >= 0 ? path.join(path.dirname(outFile), "read-thread.cjs") : defaultReadThreadBundle();
  await buildReadThreadBundle({ outFile: readOut });
  console.log(`read thread bundle: ${readOut}`);
}

void main();
