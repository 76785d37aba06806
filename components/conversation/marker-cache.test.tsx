// @vitest-environment jsdom
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { act, cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { NextIntlClientProvider } from "next-intl";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { ConversationMessage } from "@/lib/conversation/api";
import type { EventSourceLike } from "@/lib/events/client/event-stream";
import { applySystemEvent, useMessagesChangedEvents } from "@/lib/conversation/client/use-messages-changed-events";
import type { ShellOutputState } from "@/lib/conversation/client/fetchers";
import { conversationKeys } from "@/lib/conversation/client/keys";
import conversationEn from "@/messages/conversation/en.json";
import databaseEn from "@/messages/database/en.json";
import { MessageItem } from "./message-item";

const messages = { ...conversationEn, ...databaseEn };

const body = (messageId: string, stdout: string) => ({ messageId, command: "npm test", workDir: "/repo", exitCode: 0, stdout, stderr: "", truncated: false });
const output = (messageId: string, stdout: string): ShellOutputState => ({ kind: "output", output: body(messageId, stdout) });

const REMOVED = {
  error: { code: "tool_payload_removed", message: "removed" },
  removedAt: "2026-05-01T03:00:00Z",
  summary: { command: "npm test", workDir: "/repo", exitCode: 0, truncated: false, removedFields: ["normalized.shell_exec.output.stdout"] },
};

const MESSAGE: ConversationMessage = {
  id: "m2",
  sessionId: "s1",
  type: "tool_execute",
  authorType: "agent",
  content: "Run tests",
  createdAt: "2026-01-02T10:01:00Z",
  tool: { kind: "shell_exec", title: "npm test", command: "npm test", exitCode: 0, removedAt: null },
};

/** A stand-in EventSource the test drives by hand. */
function fakeSource() {
  const listeners = new Map<string, (event: { data: string }) => void>();
  const source: EventSourceLike = { addEventListener: (type, listener) => listeners.set(type, listener), close: () => listeners.clear() };
  return { factory: () => source, emit: (type: string, data: unknown) => listeners.get(type)?.({ data: JSON.stringify(data) }) };
}

function Harness({ factory }: { factory: () => EventSourceLike }) {
  useMessagesChangedEvents(factory);
  return <MessageItem message={MESSAGE} />;
}

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe("lazy output cache and compaction markers", () => {
  it("[TPR-TX-07] a messages_changed event drops the cached output of exactly the changed messages", () => {
    const client = new QueryClient();
    client.setQueryData(conversationKeys.shellOutput("m1"), output("m1", "first body"));
    client.setQueryData(conversationKeys.shellOutput("m2"), output("m2", "second body"));
    applySystemEvent(client, { type: "messages_changed", operationId: "op1", messageIds: ["m1"] });
    expect(client.getQueryData(conversationKeys.shellOutput("m1"))).toBeUndefined();
    expect(client.getQueryData(conversationKeys.shellOutput("m2"))).toEqual(output("m2", "second body"));
    // Operation progress events leave the cache alone.
    applySystemEvent(client, {
      type: "operation",
      operationId: "op1",
      kind: "cleanup",
      state: "running",
      progress: { scannedRows: 1, eligibleMessages: 1, changedMessages: 1, payloadBytes: 1, fraction: null },
    });
    expect(client.getQueryData(conversationKeys.shellOutput("m2"))).toBeDefined();
  });

  it("[TPR-TX-06] [TPR-TX-07] an open output is replaced by the localized removal notice when the marker arrives", async () => {
    let compacted = false;
    let answerGone: () => void = () => {};
    const gone = new Promise<void>((resolve) => (answerGone = resolve));
    const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
    vi.stubGlobal(
      "fetch",
      vi.fn(async () => (compacted ? gone.then(() => json(410, REMOVED)) : json(200, body("m2", "PASS all tests")))),
    );
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    const source = fakeSource();
    render(
      <QueryClientProvider client={client}>
        <NextIntlClientProvider locale="en" messages={messages} timeZone="UTC">
          <Harness factory={source.factory} />
        </NextIntlClientProvider>
      </QueryClientProvider>,
    );
    fireEvent.click(screen.getByRole("button", { name: conversationEn.conversation.output.show }));
    expect(await screen.findByText("PASS all tests")).toBeTruthy();

    compacted = true;
    act(() => source.emit("messages_changed", { type: "messages_changed", operationId: "op1", messageIds: ["m2"] }));
    // The stale body leaves the screen while the refetch is still unanswered.
    await waitFor(() => expect(screen.queryByText("PASS all tests")).toBeNull());
    answerGone();
    const notice = await screen.findByTestId("output-removed");
    expect(notice.textContent).toContain("Output removed on May 1, 2026");
    expect(notice.textContent).toContain("npm test");
    expect(client.getQueryData<ShellOutputState>(conversationKeys.shellOutput("m2"))?.kind).toBe("removed");
  });
});
