// Several app instances on one PostgreSQL database run one worker (the lease
// holder). A command accepted on another instance is written into the shared
// compaction record there (so validation, 409s and status stay the same) and
// then relayed to the holder, whose worker carries it out. Commands carry
// operation ids and flags only.
export type RelayedCommand =
  /** The record's slot holds a queued operation for the holder's worker to run. */
  | { kind: "pickup"; operationId: string; outsideWindow?: boolean }
  /** Stop this operation (a running job at its next batch, a continuation now). */
  | { kind: "cancel"; operationId: string };

export type CommandRelay = {
  /** True while another instance's worker runs jobs (this one does not hold the lease). */
  remote(): boolean;
  /** Delivers the command to the worker that runs jobs (best effort; the holder's record watch catches a lost pickup). */
  send(command: RelayedCommand): void;
};

/** The command in a relay payload, or null when it is not one. */
export function parseRelayedCommand(payload: string): RelayedCommand | null {
  let value: unknown;
  try {
    value = JSON.parse(payload);
  } catch {
    return null;
  }
  if (!value || typeof value !== "object") return null;
  const { kind, operationId, outsideWindow } = value as Record<string, unknown>;
  if (typeof operationId !== "string" || operationId.length === 0 || operationId.length > 128) return null;
  if (kind === "cancel") return { kind, operationId };
  if (kind === "pickup") return outsideWindow === true ? { kind, operationId, outsideWindow: true } : { kind, operationId };
  return null;
}
