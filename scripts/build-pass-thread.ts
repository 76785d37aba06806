// npm run build (first step): writes the cleanup slice's worker-thread bundle
// to dist/compaction-pass-thread.cjs; without it cleanup runs inline.
//   npx tsx scripts/build-pass-thread.ts [--out FILE]
import { defaultPassThreadBundle } from "@/server/compaction/thread/thread-config";
import { buildPassThreadBundle } from "./lib/pass-thread-bundle";

async function main() {
  const i = process.argv.indexOf("--out");
  const outFile = i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : defaultPassThreadBundle();
  await buildPassThreadBundle({ outFile });
  console.log(`pass thread bundle: ${outFile}`);
}

void main();
