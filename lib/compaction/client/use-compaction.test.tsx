// @vitest-environment jsdom
import { act, cleanup, renderHook, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { compactionKeys } from "./keys";
import type { CompactionStatusBody } from "@/lib/compaction/api";
import { ACTIVE_POLL_MS, IDLE_POLL_MS, pollIntervalFor } from "./polling";
import { errorBody, PUT_KEY, RUN_KEY, scriptedFetch, STATUS_KEY, statusBody, withClient } from "./test-support";
import { useCompaction } from "./use-compaction";

const PUT_BODY = { policy: { enabled: false, age: { value: 3, unit: "months" as const } }, expectedRevision: 1 };

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

async function mountLoaded(server: ReturnType<typeof scriptedFetch>, body: CompactionStatusBody = statusBody()) {
  server.answer(STATUS_KEY, { status: 200, body });
  const { wrapper, client } = withClient();
  const hook = renderHook(() => useCompaction(), { wrapper });
  await waitFor(() => expect(hook.result.current.status).toBeDefined());
  return { hook, client };
}

type Failure = { status: number; code: string };

/** Mounts loaded, then a run fails and the following status read fails too. */
async function mountWithFailedRunAndRead(failures: { run: Failure; read: Failure }) {
  const server = scriptedFetch();
  const mounted = await mountLoaded(server);
  server.answer(RUN_KEY, { status: failures.run.status, body: errorBody(failures.run.code) });
  server.answer(STATUS_KEY, { status: failures.read.status, body: errorBody(failures.read.code) });
  await act(() => mounted.hook.result.current.run(1));
  await waitFor(() => expect(mounted.hook.result.current.statusError?.code).toBe(failures.read.code));
  return { server, ...mounted };
}

/** Mounts loaded, then a run is refused with 409 operation_active (the read after it succeeds). */
async function mountWithRefusedRun() {
  const server = scriptedFetch();
  const mounted = await mountLoaded(server);
  server.answer(RUN_KEY, { status: 409, body: errorBody("operation_active") });
  server.answer(STATUS_KEY, { status: 200, body: statusBody() });
  await act(() => mounted.hook.result.current.run(1));
  expect(mounted.hook.result.current.actionError?.code).toBe("operation_active");
  return { server, ...mounted };
}

describe("useCompaction error channels", () => {
  it("[TPR-UI-02] a failed read sets only the status error, and a current successful read clears it", async () => {
    const server = scriptedFetch();
    server.answer(STATUS_KEY, { status: 503, body: errorBody("maintenance_busy") });
    const { wrapper } = withClient();
    const { result } = renderHook(() => useCompaction(), { wrapper });
    await waitFor(() => expect(result.current.statusError?.status).toBe(503));
    expect(result.current.actionError).toBeNull();
    expect(result.current.error?.channel).toBe("status");

    server.answer(STATUS_KEY, { status: 200, body: statusBody() });
    await act(() => result.current.refresh());
    expect(result.current.statusError).toBeNull();
    expect(result.current.status?.policy.revision).toBe(1);
  });

  it("[TPR-UI-02] a successful read clears the status error but not the action error", async () => {
    const { server, hook, client } = await mountWithFailedRunAndRead({
      run: { status: 409, code: "cleanup_not_approved" },
      read: { status: 503, code: "maintenance_busy" },
    });
    expect(hook.result.current.actionError?.code).toBe("cleanup_not_approved");

    server.answer(STATUS_KEY, { status: 200, body: statusBody() });
    await act(() => client.invalidateQueries({ queryKey: compactionKeys.status() }));
    await waitFor(() => expect(hook.result.current.statusError).toBeNull());
    expect(hook.result.current.actionError?.code).toBe("cleanup_not_approved");
  });

  it("[TPR-UI-03] an action error takes display precedence and survives background reads", async () => {
    const { server, hook, client } = await mountWithFailedRunAndRead({
      run: { status: 409, code: "operation_active" },
      read: { status: 500, code: "internal_error" },
    });
    expect(hook.result.current.error?.channel).toBe("action");
    expect(hook.result.current.error?.code).toBe("operation_active");

    for (let i = 0; i < 2; i++) {
      server.answer(STATUS_KEY, { status: 200, body: statusBody() });
      await act(() => client.invalidateQueries({ queryKey: compactionKeys.status() }));
    }
    expect(server.count(STATUS_KEY)).toBe(4);
    expect(hook.result.current.error?.code).toBe("operation_active");
  });

  it("[TPR-UI-03] Refresh dismisses the action error", async () => {
    const { server, hook } = await mountWithRefusedRun();
    server.answer(STATUS_KEY, { status: 200, body: statusBody() });
    await act(() => hook.result.current.refresh());
    expect(hook.result.current.actionError).toBeNull();
    expect(hook.result.current.error).toBeNull();
  });

  it("[TPR-UI-03] a new action dismisses the previous action error", async () => {
    const { server, hook } = await mountWithRefusedRun();
    const release = server.hold(PUT_KEY, { status: 200, body: statusBody({}, 2) });
    server.answer(STATUS_KEY, { status: 200, body: statusBody({}, 2) });
    let pending: Promise<unknown> = Promise.resolve();
    act(() => {
      pending = hook.result.current.save(PUT_BODY);
    });
    await waitFor(() => expect(hook.result.current.busy).toBe("save"));
    expect(hook.result.current.actionError).toBeNull();
    release();
    await act(() => pending);
    expect(hook.result.current.busy).toBeNull();
  });
});

describe("useCompaction stale reads", () => {
  it("[TPR-UI-04] a read that started before a mutation cannot overwrite the mutation result", async () => {
    const server = scriptedFetch();
    const { hook, client } = await mountLoaded(server);
    const releaseRead = server.hold(STATUS_KEY, { status: 200, body: statusBody({}, 1) });
    act(() => void client.refetchQueries({ queryKey: compactionKeys.status() }));
    await waitFor(() => expect(server.count(STATUS_KEY)).toBe(2));

    server.answer(PUT_KEY, { status: 200, body: statusBody({}, 5) });
    const releaseAfter = server.hold(STATUS_KEY, { status: 200, body: statusBody({}, 5) });
    await act(() => hook.result.current.save(PUT_BODY));
    expect(hook.result.current.status?.policy.revision).toBe(5);

    await act(async () => releaseRead());
    expect(hook.result.current.status?.policy.revision).toBe(5);
    await act(async () => releaseAfter());
    await waitFor(() => expect(hook.result.current.isFetching).toBe(false));
    expect(hook.result.current.status?.policy.revision).toBe(5);
  });

  it("[TPR-UI-04] an older successful read cannot clear a newer status error", async () => {
    const server = scriptedFetch();
    const { hook } = await mountLoaded(server);
    // Read A starts and is slow; the administrator's action bumps the generation;
    // read B (after the action) fails. A then succeeds late.
    const releaseA = server.hold(STATUS_KEY, { status: 200, body: statusBody() });
    act(() => void hook.result.current.refresh());
    await waitFor(() => expect(server.count(STATUS_KEY)).toBe(2));
    server.answer(RUN_KEY, { status: 202, body: { operationId: "op-1" } });
    server.answer(STATUS_KEY, { status: 503, body: errorBody("maintenance_busy") });
    await act(() => hook.result.current.run(1));
    await waitFor(() => expect(hook.result.current.statusError?.status).toBe(503));
    await act(async () => releaseA());
    expect(hook.result.current.statusError?.status).toBe(503);
  });

  it("[TPR-UI-04] a mutation that settles after its hook unmounted writes nothing (lifetime epoch)", async () => {
    const server = scriptedFetch();
    const first = await mountLoaded(server);
    const release = server.hold(PUT_KEY, { status: 200, body: statusBody({}, 3) });
    let pending: Promise<unknown> = Promise.resolve();
    act(() => {
      pending = first.hook.result.current.save(PUT_BODY);
    });
    await waitFor(() => expect(server.count(PUT_KEY)).toBe(1));
    first.hook.unmount();
    first.client.setQueryData(compactionKeys.status(), statusBody({}, 7));
    release();
    await pending;
    expect(first.client.getQueryData<CompactionStatusBody>(compactionKeys.status())?.policy.revision).toBe(7);
  });
});

describe("useCompaction cadence and retries", () => {
  it("[TPR-UI-05] polls at a steady cadence, faster while an operation or preparation is active", () => {
    expect(pollIntervalFor(undefined)).toBe(IDLE_POLL_MS);
    expect(pollIntervalFor(statusBody())).toBe(IDLE_POLL_MS);
    const running = { id: "op", kind: "cleanup", state: "running", startedAt: null, finishedAt: null, cutoff: null, scannedRows: 0, eligibleTasks: 0, eligibleMessages: 0, changedMessages: 0, payloadBytes: 0, skipped: {}, stale: false } as const;
    expect(pollIntervalFor(statusBody({ activeOperation: running }))).toBe(ACTIVE_POLL_MS);
    expect(pollIntervalFor(statusBody({ preparation: { state: "running", choice: "backup", receipt: null, errorCode: null, operationId: "p" } }))).toBe(ACTIVE_POLL_MS);
    expect(ACTIVE_POLL_MS).toBeLessThan(IDLE_POLL_MS);
  });

  it("[TPR-UI-05] a failed mutation is sent once, never retried automatically", async () => {
    const server = scriptedFetch();
    const { hook } = await mountLoaded(server);
    server.answer(RUN_KEY, { status: 500, body: errorBody("internal_error") });
    server.answer(STATUS_KEY, { status: 200, body: statusBody() });
    const result = await act(() => hook.result.current.run(1));
    expect(result.ok).toBe(false);
    await waitFor(() => expect(hook.result.current.isFetching).toBe(false));
    expect(server.count(RUN_KEY)).toBe(1);
  });
});
