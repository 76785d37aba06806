// The PostgreSQL half of the runtime's wiring: the pool (migrated at open),
// the checkpoint saver on that pool, and what lets several instances share one
// database (event bridge with the command relay and the durable cancel watch,
// worker lease, maintenance lock).
import "server-only";
import { readPgConfig } from "./db/pg/config";
import { applyPgMigrations } from "./db/pg/migrate";
import { createPgDb, type PgDb } from "./db/pg/pg-db";
import { bridgeEventBus, type EventBridge } from "./db/pg/event-bridge";
import { createWorkerLease, type WorkerLease } from "./db/pg/worker-lease";
import { COMMANDS_CHANNEL, createCommandRelay, receiveCommands } from "./db/pg/command-relay";
import { createPgMaintenanceLock } from "./db/pg/maintenance-lock";
import { createSessionSlot } from "./db/pg/session-slot";
import type { CommandRelay } from "./compaction/worker/command-relay";
import type { ProcessLock } from "./maintenance/process-lock";
import type { Timers } from "./clock";
import type { Logger } from "./log";
import { createEventBus, type EventBus } from "./events/bus";
import { startPgSaver, type PgSaverHandle } from "./checkpoints/pg-saver";
import { createPgCompactionStore } from "./compaction/store/pg-store";
import { readCompactionRecord } from "./compaction/policy/record";
import { requestedCancel, watchRequestedCancels } from "./compaction/worker/relay-intake";

/** An open, migrated PostgreSQL database: the node-postgres pool every store and the checkpoint saver share. */
export type OpenedPostgres = { db: PgDb };

/**
 * Creates the pool and applies pending migrations on it (under an advisory
 * lock, so instances starting together migrate once), before anything is
 * served. An unreachable server leaves the runtime without a database:
 * reads answer `unsupported`, mutations 501, and the log says why (the
 * driver names host and user, never the password).
 */
export async function openPostgres(url: string, env: Record<string, string | undefined>, log: Logger): Promise<OpenedPostgres | null> {
  let db: PgDb | null = null;
  try {
    const config = readPgConfig(url, env);
    db = createPgDb(config, {
      onIdleError: (error) => log.warn({ err: { name: error.name, code: (error as { code?: unknown }).code } }, "an idle PostgreSQL session failed"),
    });
    await applyPgMigrations(db);
    return { db };
  } catch (error) {
    await db?.close().catch(() => undefined);
    log.error({ err: { name: (error as Error)?.name, code: (error as { code?: unknown })?.code } }, "opening the PostgreSQL database failed");
    return null;
  }
}

/** PostgresSaver on the runtime's pool (one driver, one set of sessions); a failed setup is logged and retried by the next thread request. */
export function openPgSaver(db: PgDb, log: Logger): PgSaverHandle {
  const handle = startPgSaver({ pool: db.pool });
  handle.ready().catch((error: unknown) => {
    log.error({ err: { name: (error as Error)?.name, code: (error as { code?: unknown })?.code } }, "setting up the checkpoint saver's tables failed");
  });
  return handle;
}

export type MultiInstance = {
  bus: EventBus;
  lease: WorkerLease;
  relay: CommandRelay;
  maintenanceLock: ProcessLock;
  /** Settles once the event bridge's first LISTEN is in place (or failed, reconnecting in the background). */
  listening: Promise<void>;
  stop(): Promise<void>;
};

/** How often the lease holder also looks for a requested cancel whose notification was lost (besides its own batch boundaries). */
const CANCEL_WATCH_MS = 60_000;

/**
 * The event bridge (which also carries commands to the worker's instance),
 * the worker lease and the maintenance guard's lock, each on a session of its
 * own (a session-level lock or a LISTEN lives as long as its session);
 * NOTIFYs go through the pool.
 */
export function openMultiInstance(options: {
  /** The node-postgres pool: NOTIFYs, and the configuration of the dedicated sessions. */
  db: PgDb;
  timers: Timers;
  log: Logger;
  instanceId: string;
  onCommand: Parameters<typeof receiveCommands>[0]["deliver"];
  /** True once the runtime started its background work (before that, commands run where accepted). */
  started: () => boolean;
}): MultiInstance | null {
  const { db, timers, log } = options;
  try {
    const channels = { [COMMANDS_CHANNEL]: receiveCommands({ deliver: options.onCommand, log }) };
    const bus: EventBus & EventBridge = bridgeEventBus({
      local: createEventBus(),
      db,
      listen: createSessionSlot(() => db.session("listen")),
      instanceId: options.instanceId,
      timers,
      log: log.child({ component: "event-bridge" }),
      channels,
    });
    const lease = createWorkerLease({ slot: createSessionSlot(() => db.session("worker lease")), timers, log: log.child({ component: "worker-lease" }) });
    const records = createPgCompactionStore(db);
    const maintenanceLock = createPgMaintenanceLock({ slot: createSessionSlot(() => db.session("maintenance lock")), log: log.child({ component: "maintenance-lock" }) });
    const cancels = watchRequestedCancels({
      readRequested: async () => requestedCancel(await readCompactionRecord(records)),
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
      relay: createCommandRelay({ db, log, remote: () => options.started() && !lease.held() }),
      maintenanceLock,
      listening: bus.ready(),
      async stop() {
        cancels.stop();
        await bus.stop();
        await lease.stop();
        await maintenanceLock.close();
      },
    };
  } catch (error) {
    log.error({ err: { name: (error as Error)?.name } }, "PostgreSQL instance coordination could not start");
    return null;
  }
}
