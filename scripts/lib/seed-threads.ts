// Shared by `npm run demo` and the e2e server: seed the demo agent threads
// through a runtime on DATABASE_URL (the thread service the routes use, in
// the configured channel mode), only when no thread has a checkpoint yet.
import { threadService } from "@/server/checkpoints/service";
import { createLogger } from "@/server/log";
import { createMigratedRuntime, openRuntime } from "@/server/runtime";
import { seedAgentThreads, type AgentThreadsResult, type AgentThreadsSize } from "@/server/workspace/demo/agent-threads";

/** Small tool outputs: the demo shows thread shapes, not payload volume. */
const DEMO_TOOL_PAYLOAD_BYTES = "64";

export type ThreadSeedOutcome = { seeded: false; existing: number } | { seeded: true; result: AgentThreadsResult; ms: number };

export async function seedDemoThreadsIfEmpty(size: AgentThreadsSize, env: NodeJS.ProcessEnv = process.env): Promise<ThreadSeedOutcome> {
  const rt = openRuntime(await createMigratedRuntime({ env, log: createLogger({ level: "warn" }) }));
  if (!rt) throw new Error("agent threads can only be seeded into a file: SQLite database");
  try {
    const existing = (await rt.stores.checkpoints.listThreadIds()).length;
    if (existing > 0) return { seeded: false, existing };
    const started = performance.now();
    const deps = threadService(rt, { ...env, CHECKPOINT_AGENT_TOOL_PAYLOAD_BYTES: env.CHECKPOINT_AGENT_TOOL_PAYLOAD_BYTES ?? DEMO_TOOL_PAYLOAD_BYTES });
    const result = await seedAgentThreads(deps, size);
    return { seeded: true, result, ms: Math.round(performance.now() - started) };
  } finally {
    await rt.stop();
  }
}
