// Test helpers: a scripted fetch (answers queued per "METHOD path", each
// optionally held until the test releases it) and a react-query wrapper.
import { QueryClientProvider, type QueryClient } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { vi } from "vitest";
import { createQueryClient } from "@/lib/query/client";
import { idleStatusBody, type CompactionStatusBody } from "@/lib/compaction/api";

type Answer = { status: number; body: unknown };
type Pending = { answer: Answer; gate: Promise<void> | null };

export function scriptedFetch() {
  const queues = new Map<string, Pending[]>();
  const calls: string[] = [];
  const fetchMock = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const key = `${init?.method ?? "GET"} ${String(input)}`;
    calls.push(key);
    const next = queues.get(key)?.shift();
    if (!next) throw new Error(`unexpected request ${key}`);
    if (next.gate) await next.gate;
    return new Response(JSON.stringify(next.answer.body), { status: next.answer.status, headers: { "content-type": "application/json" } });
  });
  vi.stubGlobal("fetch", fetchMock);
  const push = (key: string, answer: Answer, held: boolean) => {
    let release = () => {};
    const gate = held ? new Promise<void>((resolve) => (release = resolve)) : null;
    const list = queues.get(key) ?? [];
    list.push({ answer, gate });
    queues.set(key, list);
    return release;
  };
  return {
    calls,
    /** Queues an answer; returns a release function when held. */
    answer: (key: string, answer: Answer) => push(key, answer, false),
    hold: (key: string, answer: Answer) => push(key, answer, true),
    count: (key: string) => calls.filter((call) => call === key).length,
  };
}

export const STATUS_KEY = "GET /api/v1/system/database/tool-payload-retention";
export const PUT_KEY = "PUT /api/v1/system/database/tool-payload-retention";
export const RUN_KEY = "POST /api/v1/system/database/tool-payload-retention/run";
export const ANALYZE_KEY = "POST /api/v1/system/database/tool-payload-retention/analyze";

export function statusBody(patch: Partial<CompactionStatusBody> = {}, revision = 1): CompactionStatusBody {
  const policy = { enabled: false, age: { value: 3, unit: "months" as const }, revision };
  return { ...idleStatusBody({ capability: "supported", recordState: "ok", policy }), ...patch };
}

export function errorBody(code: string, message = code) {
  return { error: { code, message } };
}

export function withClient(client: QueryClient = createQueryClient()) {
  const wrapper = ({ children }: { children: ReactNode }) => <QueryClientProvider client={client}>{children}</QueryClientProvider>;
  return { client, wrapper };
}
