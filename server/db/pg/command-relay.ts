// The worker's command relay between instances: NOTIFY on one channel (sent
// through the pool), read by every instance's listening session (the event
// bridge's); only the instance whose worker runs acts on it.
import type { Logger } from "@/server/log";
import { parseRelayedCommand, type CommandRelay, type RelayedCommand } from "@/server/compaction/worker/command-relay";
import type { PgDb } from "./pg-db";

export const COMMANDS_CHANNEL = "retention_commands";

export function createCommandRelay(options: { db: PgDb; log: Logger; remote: () => boolean }): CommandRelay {
  return {
    remote: options.remote,
    send(command) {
      // On the pool itself, never inside a caller's open transaction; not awaited (the command is in the record already).
      options.db.pool.query({ text: "select pg_notify($1, $2)", values: [COMMANDS_CHANNEL, JSON.stringify(command)] }).catch((error: unknown) => {
        // The holder's record watch picks up a queued operation.
        options.log.warn({ operationId: command.operationId, kind: command.kind, err: { name: (error as Error)?.name } }, "command relay notify failed");
      });
    },
  };
}

/** The listener-side handler: parses a payload and hands a valid command to `deliver`. */
export function receiveCommands(options: { deliver: (command: RelayedCommand) => void; log: Logger }): (payload: string) => void {
  return (payload) => {
    const command = parseRelayedCommand(payload);
    if (!command) return;
    try {
      options.deliver(command);
    } catch (error) {
      options.log.warn({ operationId: command.operationId, kind: command.kind, err: { name: (error as Error).name } }, "relayed command failed");
    }
  };
}
