import "server-only";
import { audited } from "@/server/audit/record";
import { auditRetentionDays, schedulePruning } from "@/server/audit/retention";
import { ensureFirstAdmin } from "@/server/auth/first-admin";
import { pruneSessions } from "@/server/auth/sessions";
import { scheduleThrottlePruning } from "@/server/auth/throttle-pruning";
import { createLogger, type Logger } from "@/server/log";
import { startMaintenance } from "@/server/maintenance/startup";
import { createMigratedRuntime, installProcessRuntime, openRuntime, processRuntime, type Runtime } from "@/server/runtime";
import { processStartup, setProcessStartup } from "@/server/runtime-slot";
import { liveStores } from "@/server/runtime-database";

/**
 * Creates, installs and starts the process runtime, once: instrumentation.ts
 * calls it at boot, and a dev reload calling it again finds the installed
 * runtime and returns it. Each step is isolated: one failing is logged (code
 * only) and the others still run. Returns null when the runtime itself cannot
 * be created (e.g. a malformed DATABASE_URL); the next call tries again.
 * Calls made while a start is in progress wait for it (one runtime per
 * process); it settles once the startup steps have run.
 */
export function startServerProcess(env: NodeJS.ProcessEnv = process.env): Promise<Runtime | null> {
  const existing = processRuntime();
  if (existing) return Promise.resolve(existing);
  const starting = processStartup();
  if (starting) return starting;
  const started = startOnce(env).finally(() => setProcessStartup(null));
  setProcessStartup(started);
  return started;
}

async function startOnce(env: NodeJS.ProcessEnv): Promise<Runtime | null> {
  let rt: Runtime;
  try {
    // On PostgreSQL the migrations are awaited here: the runtime is installed (and served) only after them.
    rt = await createMigratedRuntime({ env });
  } catch (error) {
    logFailure(createLogger({ level: env.LOG_LEVEL }), "runtime", error);
    return null;
  }
  installProcessRuntime(rt);
  const open = openRuntime(rt);
  if (!open) return rt;
  await runStep(rt.log, "first_admin", () =>
    audited(open, { actor: "system", kind: "user.created", detail: (outcome) => (outcome === "created" ? { role: "admin" } : null) }, () =>
      ensureFirstAdmin({
        store: open.stores.auth,
        email: env.ADMIN_EMAIL,
        password: env.ADMIN_PASSWORD,
        nowMs: rt.clock.now(),
        log: rt.log,
      }),
    ),
  );
  await runStep(rt.log, "audit_pruning", () =>
    schedulePruning({
      // The stores of the moment on either engine (a restore reopens them; none once stopped).
      store: () => liveStores(rt)?.audit ?? null,
      clock: rt.clock,
      timers: rt.timers,
      log: rt.log,
      days: auditRetentionDays(env),
    }),
  );
  await runStep(rt.log, "prune_sessions", () => pruneSessions(open.stores.auth, { policy: rt.sessionPolicy, nowMs: rt.clock.now() }));
  await runStep(rt.log, "throttle_pruning", () =>
    scheduleThrottlePruning({
      store: () => liveStores(rt)?.auth ?? null,
      clock: rt.clock,
      timers: rt.timers,
      log: rt.log,
    }),
  );
  await runStep(rt.log, "maintenance", () => startMaintenance({ dbFile: open.dbFile, guard: rt.guard, log: rt.log }));
  await runStep(rt.log, "compaction_worker", () => {
    rt.start();
    // Batches commit one by one, so an abrupt exit is safe; a clean stop
    // just ends the current batch first.
    process.once("SIGTERM", () => void rt.stop());
  });
  return rt;
}

/**
 * The process runtime for a request or a page render. Normally installed at
 * boot; when nothing installed one (a script importing a route, a server
 * without instrumentation) it is started here, through the same steps.
 */
export async function requireProcessRuntime(): Promise<Runtime> {
  const rt = processRuntime() ?? (await startServerProcess());
  if (!rt) throw new Error("the server runtime could not be created");
  return rt;
}

async function runStep(log: Logger, name: string, step: () => unknown): Promise<void> {
  try {
    await step();
  } catch (error) {
    logFailure(log, name, error);
  }
}

function logFailure(log: Logger, step: string, error: unknown): void {
  const err = error instanceof Error ? { name: error.name, code: (error as { code?: unknown }).code } : { name: "unknown" };
  log.error({ step, err }, "startup step failed");
}
