import { describe, expect, it } from "vitest";
import { parseSystemEvent } from "@/lib/events/client/event-stream";
import { compactionOperationOf } from "./use-operation-events";

const progress = { scannedRows: 10, eligibleMessages: 4, changedMessages: 2, payloadBytes: 100, fraction: null };
const read = (data: string) => {
  const event = parseSystemEvent(data);
  return event ? compactionOperationOf(event) : null;
};

describe("operation events", () => {
  it("keeps compaction operation events with their counts", () => {
    const event = read(JSON.stringify({ type: "operation", operationId: "op", kind: "cleanup", state: "running", progress }));
    expect(event?.progress.changedMessages).toBe(2);
  });

  it("ignores other kinds, other event types and unreadable data", () => {
    expect(read(JSON.stringify({ type: "operation", operationId: "op", kind: "checkpoint_cleanup", state: "running", progress }))).toBeNull();
    expect(read(JSON.stringify({ type: "messages_changed", operationId: "op", messageIds: ["m"] }))).toBeNull();
    expect(read("{not json")).toBeNull();
    expect(read(JSON.stringify({ type: "operation", operationId: "op", kind: "analysis", state: "running" }))).toBeNull();
  });
});
