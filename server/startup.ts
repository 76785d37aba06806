import "server-only";
import { ensureFirstAdmin } from "@/server/auth/first-admin";
import { pruneSessions } from "@/server/auth/sessions";
import { logger } from "@/server/log";
import { startMaintenance } from "@/server/maintenance/startup";
import { retentionWorker } from "@/server/compaction/service";
import { runtime } from "@/server/runtime";
import { createSqliteAuthStore } from "@/server/auth/sqlite-store";

/**
 * Node-runtime startup steps, called once from instrumentation.ts. Each step
 * is isolated: one failing is logged (code only) and the others still run.
 */
export function startServerProcess(): void {
  runStep("first_admin", () => {
    const rt = runtime();
    if (!rt.handle) return;
    ensureFirstAdmin({
      store: createSqliteAuthStore(rt.handle.sqlite),
      email: process.env.ADMIN_EMAIL,
      password: process.env.ADMIN_PASSWORD,
      nowMs: rt.clock.now(),
      log: rt.log,
    });
  });
  runStep("prune_sessions", () => {
    const rt = runtime();
    if (rt.handle) pruneSessions(createSqliteAuthStore(rt.handle.sqlite), { nowMs: rt.clock.now() });
  });
  runStep("maintenance", () => {
    const rt = runtime();
    if (rt.handle) startMaintenance({ dbFile: rt.handle.file, log: rt.log });
  });
  runStep("retention_worker", () => {
    const rt = runtime();
    if (!rt.handle) return;
    const worker = retentionWorker(rt);
    // Batches commit one by one, so an abrupt exit is safe; a clean stop
    // just ends the current batch first.
    process.once("SIGTERM", () => void worker.stop());
  });
}

function runStep(name: string, step: () => void): void {
  try {
    step();
  } catch (error) {
    const err = error instanceof Error ? { name: error.name, code: (error as { code?: unknown }).code } : { name: "unknown" };
    logger().error({ step: name, err }, "startup step failed");
  }
}
