// A live server process for the CLI tests: the real boot path
// (startServerProcess: runtime, first admin, sweeps, worker) without Next's
// HTTP layer, holding the maintenance guard the way a backup or VACUUM does
// until told to release it on stdin. Prints "held", then "released".
import { createInterface } from "node:readline";
import { startServerProcess } from "@/server/startup";
import { openRuntime } from "@/server/runtime";

async function main(): Promise<void> {
  const rt = await startServerProcess(process.env);
  const open = rt ? openRuntime(rt) : null;
  if (!open) {
    process.stderr.write("live-server: no runtime\n");
    process.exit(1);
  }
  const lease = await open.guard.acquireExclusive({ owner: "live-server-backup", kind: "backup" });
  process.stdout.write("held\n");
  const lines = createInterface({ input: process.stdin });
  lines.on("line", (line) => {
    if (line.trim() !== "release") return;
    lease.release();
    process.stdout.write("released\n");
  });
  lines.on("close", () => {
    lease.release();
    void open.stop().then(() => process.exit(0));
  });
}

void main();
