// The PostgreSQL half of the runtime's wiring: the pool (migrated at open),
// the checkpoint saver's own pool, and what lets several instances share one
// database (event bridge with the command relay and the durable cancel watch,
// worker lease, maintenance lock).
import "server-only";
import { readPgConfig } from "./db/pg/config";
import { migratePg } from "./db/pg/migrate";
import { createPgPool, type PgPool } from "./db/pg/pool";
import { bridgeEventBus, type EventBridge } from "./db/pg/event-bridge";
import { createWorkerLease, type WorkerLease } from "./db/pg/worker-lease";
import { COMMANDS_CHANNEL, createCommandRelay, receiveCommands } from "./db/pg/command-relay";
import { createPgMaintenanceLock } from "./db/pg/maintenance-lock";
import type { CommandRelay } from "./compaction/worker/command-relay";
import type { ProcessLock } from "./maintenance/process-lock";
import type { Timers } from "./clock";
import type { Logger } from "./log";
import { createEventBus, type EventBus } from "./events/bus";
import { startPgSaver, type PgSaverHandle } from "./checkpoints/pg-saver";
import { createPgCompactionStore } from "./compaction/store/pg-store";
import { readRetentionRecord } from "./compaction/policy/record";
import { requestedCancel, watchRequestedCancels } from "./compaction/worker/relay-intake";

/**
 * Connects to PostgreSQL and applies pending migrations (under an advisory
 * lock, so instances starting together migrate once). An unreachable server
 * leaves the runtime without a database: reads answer `unsupported`,
 * mutations 501, and the log says why (libpq names host and user, never the
 * password).
 */
export function openPostgres(url: string, env: Record<string, string | undefined>, log: Logger): PgPool | null {
  let pool: PgPool | null = null;
  try {
    pool = createPgPool(readPgConfig(url, env));
    migratePg(pool.main);
    return pool;
  } catch (error) {
    pool?.close();
    log.error({ err: { name: (error as Error)?.name, code: (error as { code?: unknown })?.code } }, "opening the PostgreSQL database failed");
    return null;
  }
}

/** PostgresSaver on a pool of its own (sized like ours); a failed setup is logged and retried by the next thread request. */
export function openPgSaver(url: string, env: Record<string, string | undefined>, log: Logger): PgSaverHandle {
  const handle = startPgSaver({ config: readPgConfig(url, env) });
  handle.ready().catch((error: unknown) => {
    log.error({ err: { name: (error as Error)?.name, code: (error as { code?: unknown })?.code } }, "setting up the checkpoint saver's tables failed");
  });
  return handle;
}

export type MultiInstance = { bus: EventBus; lease: WorkerLease; relay: CommandRelay; maintenanceLock: ProcessLock; stop(): void };

/** How often the lease holder also looks for a requested cancel whose notification was lost (besides its own batch boundaries). */
const CANCEL_WATCH_MS = 60_000;

/**
 * The event bridge (which also carries commands to the worker's instance) and
 * the worker lease, each on a session of its own (the lease's lock, and the
 * maintenance guard's beside it, live as long as that session).
 */
export function openMultiInstance(options: {
  pool: PgPool;
  timers: Timers;
  log: Logger;
  instanceId: string;
  onCommand: Parameters<typeof receiveCommands>[0]["deliver"];
  /** True once the runtime started its background work (before that, commands run where accepted). */
  started: () => boolean;
}): MultiInstance | null {
  const { pool, timers, log } = options;
  try {
    const listener = pool.acquire();
    const leaseSession = pool.acquire();
    const channels = { [COMMANDS_CHANNEL]: receiveCommands({ deliver: options.onCommand, log }) };
    const bus: EventBus & EventBridge = bridgeEventBus({ local: createEventBus(), sender: pool.main, listener, instanceId: options.instanceId, timers, log, channels });
    const lease = createWorkerLease({ client: leaseSession, timers, log: log.child({ component: "worker-lease" }) });
    const records = createPgCompactionStore(pool.main);
    const cancels = watchRequestedCancels({
      readRequested: () => requestedCancel(readRetentionRecord(records)),
      bus,
      timers,
      everyMs: CANCEL_WATCH_MS,
      holds: () => options.started() && lease.held(),
      deliver: options.onCommand,
      log,
    });
    return {
      bus,
      lease,
      relay: createCommandRelay({ sender: pool.main, log, remote: () => options.started() && !lease.held() }),
      maintenanceLock: createPgMaintenanceLock({ client: leaseSession, log }),
      stop() {
        cancels.stop();
        bus.stop();
        lease.stop();
      },
    };
  } catch (error) {
    log.error({ err: { name: (error as Error)?.name } }, "PostgreSQL instance coordination could not start");
    return null;
  }
}
