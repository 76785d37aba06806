import { describe, expect, it } from "vitest";
import { parseOperationEvent } from "./use-operation-events";

const progress = { scannedRows: 10, eligibleMessages: 4, changedMessages: 2, payloadBytes: 100, fraction: null };

describe("operation events", () => {
  it("keeps compaction operation events with their counts", () => {
    const event = parseOperationEvent(JSON.stringify({ type: "operation", operationId: "op", kind: "cleanup", state: "running", progress }));
    expect(event?.progress.changedMessages).toBe(2);
  });

  it("ignores other kinds, other event types and unreadable data", () => {
    expect(parseOperationEvent(JSON.stringify({ type: "operation", operationId: "op", kind: "checkpoint_cleanup", state: "running", progress }))).toBeNull();
    expect(parseOperationEvent(JSON.stringify({ type: "messages_changed", operationId: "op", messageIds: ["m"] }))).toBeNull();
    expect(parseOperationEvent("{not json")).toBeNull();
    expect(parseOperationEvent(JSON.stringify({ type: "operation", operationId: "op", kind: "analysis", state: "running" }))).toBeNull();
  });
});
