// @vitest-environment jsdom
// The task panel's live updates (#29, deliver 4): a per-task restore's
// progress re-reads the task's summary, its end re-reads the hold too (the
// restore may have set it), compaction changing messages re-reads the
// summary; other operations and other tasks' keys are left alone.
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { act, cleanup, render } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import type { EventSourceLike } from "@/lib/events/client/event-stream";
import { taskCompactionKeys } from "./keys";
import { useRestoreEvents } from "./use-restore-events";

function fakeSource() {
  const listeners = new Map<string, (event: { data: string }) => void>();
  const source: EventSourceLike = { addEventListener: (type, listener) => listeners.set(type, listener), close: () => listeners.clear() };
  return { factory: () => source, emit: (type: string, data: unknown) => act(() => listeners.get(type)?.({ data: JSON.stringify(data) })) };
}

function Harness({ factory }: { factory: () => EventSourceLike }) {
  useRestoreEvents("t1", factory);
  return null;
}

const progress = { scannedRows: 1, eligibleMessages: 3, changedMessages: 1, payloadBytes: 10, fraction: 0.3 };

afterEach(cleanup);

describe("useRestoreEvents", () => {
  it("restore progress re-reads the summary, its end the hold too; a cleanup's progress neither", () => {
    const client = new QueryClient();
    const seed = () => {
      client.setQueryData(taskCompactionKeys.summary("t1"), { taskId: "t1" });
      client.setQueryData(taskCompactionKeys.hold("t1"), { held: false });
      client.setQueryData(taskCompactionKeys.summary("t2"), { taskId: "t2" });
    };
    const stale = () => ({
      summary: client.getQueryState(taskCompactionKeys.summary("t1"))!.isInvalidated,
      hold: client.getQueryState(taskCompactionKeys.hold("t1"))!.isInvalidated,
    });
    const { factory, emit } = fakeSource();
    render(
      <QueryClientProvider client={client}>
        <Harness factory={factory} />
      </QueryClientProvider>,
    );
    seed();
    emit("operation", { type: "operation", operationId: "op", kind: "cleanup", state: "running", progress });
    expect(stale()).toEqual({ summary: false, hold: false });
    emit("operation", { type: "operation", operationId: "op", kind: "payload_restore", state: "running", progress });
    expect(stale()).toEqual({ summary: true, hold: false });
    seed();
    emit("operation", { type: "operation", operationId: "op", kind: "payload_restore", state: "succeeded", progress });
    expect(stale()).toEqual({ summary: true, hold: true });
    seed();
    emit("messages_changed", { type: "messages_changed", operationId: "op", messageIds: ["m1"] });
    expect(stale()).toEqual({ summary: true, hold: false });
    // Another task's panel is not re-read by this one.
    expect(client.getQueryState(taskCompactionKeys.summary("t2"))!.isInvalidated).toBe(false);
  });
});
