// Events pushed to signed-in members over Server-Sent Events. They carry
// identities, states and counts only: never payload bodies or task titles.
export type OperationKind = "analysis" | "preparation" | "cleanup" | "checkpoint_analysis" | "checkpoint_cleanup";
export type OperationState = "queued" | "running" | "succeeded" | "partial" | "failed" | "cancelled";

export type OperationEvent = {
  type: "operation";
  operationId: string;
  kind: OperationKind;
  state: OperationState;
  progress: {
    scannedRows: number;
    eligibleMessages: number;
    changedMessages: number;
    payloadBytes: number;
    /** Fraction 0..1 when the total is known, else null. */
    fraction: number | null;
  };
};

export type MessagesChangedEvent = {
  type: "messages_changed";
  operationId: string;
  messageIds: string[];
};

export type SystemEvent = OperationEvent | MessagesChangedEvent;
