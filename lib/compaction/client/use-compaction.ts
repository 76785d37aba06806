"use client";
// The Messages compaction status hook. Two error channels, kept apart:
// - statusError: the latest current GET failed. A current successful GET
//   clears it, and only it.
// - actionError: the administrator's last action failed. It takes display
//   precedence and survives background reads; Refresh or a new action
//   dismisses it.
// A lifetime epoch (bumped on unmount) and a mutation generation (bumped when
// an action starts and settles) make a GET that started before either
// "stale": it can neither clear a newer error nor overwrite a mutation result.
// Mutations never retry on their own.
// Why not useMutation: the guards above span the query and every action at
// once (an action bumps the generation the status read checks, and one
// shared epoch outlives each mutation), useMutation's per-mutation state
// cannot express "a newer action or an unmount makes this settle silently".
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useRef, useState } from "react";
import type { CompactionAge } from "@/lib/compaction/policy";
import type { PutPolicyBody, CompactionStatusBody } from "@/lib/compaction/api";
import { isAbortError, toCompactionError, type CompactionAction, type CompactionError } from "./errors";
import { fetchCompactionStatus, postAnalyze, postCancel, postRun, putCompactionPolicy } from "./fetchers";
import { compactionKeys } from "./keys";
import { pollIntervalFor } from "./polling";

export type ActionResult<T> = { ok: true; value: T } | { ok: false; error: CompactionError };

export type UseCompaction = {
  status: CompactionStatusBody | undefined;
  isLoading: boolean;
  isFetching: boolean;
  statusError: CompactionError | null;
  actionError: CompactionError | null;
  /** What the card shows: the action error wins over the status-read error. */
  error: CompactionError | null;
  busy: CompactionAction | null;
  refresh: () => Promise<void>;
  dismissActionError: () => void;
  save: (body: PutPolicyBody) => Promise<ActionResult<CompactionStatusBody>>;
  analyze: (age: CompactionAge) => Promise<ActionResult<{ operationId: string }>>;
  /** `outsideWindow`: the administrator confirmed running outside the maintenance window. */
  run: (expectedRevision: number, options?: { outsideWindow?: boolean }) => Promise<ActionResult<{ operationId: string }>>;
  cancel: (operationId: string) => Promise<ActionResult<unknown>>;
};

export function useCompaction(options: { enabled?: boolean } = {}): UseCompaction {
  const queryClient = useQueryClient();
  const epochRef = useRef(0);
  const generationRef = useRef(0);
  const readSeqRef = useRef(0);
  const actionSeqRef = useRef(0);
  const [statusError, setStatusError] = useState<CompactionError | null>(null);
  const [actionError, setActionError] = useState<CompactionError | null>(null);
  const [busy, setBusy] = useState<CompactionAction | null>(null);

  useEffect(() => {
    const epochAtMount = epochRef.current;
    return () => {
      // Anything started during this lifetime is stale from now on.
      if (epochRef.current === epochAtMount) epochRef.current += 1;
    };
  }, []);

  const query = useQuery<CompactionStatusBody>({
    queryKey: compactionKeys.status(),
    enabled: options.enabled ?? true,
    retry: false,
    staleTime: 1_000,
    refetchInterval: (current) => pollIntervalFor(current.state.data),
    queryFn: async ({ signal }) => {
      const seq = ++readSeqRef.current;
      const epoch = epochRef.current;
      const generation = generationRef.current;
      const isCurrent = () => epochRef.current === epoch && generationRef.current === generation && readSeqRef.current === seq;
      try {
        const data = await fetchCompactionStatus(signal);
        if (isCurrent()) {
          setStatusError(null);
          return data;
        }
        // Stale: keep whatever a newer read or a mutation already stored.
        return queryClient.getQueryData<CompactionStatusBody>(compactionKeys.status()) ?? data;
      } catch (error) {
        if (!isAbortError(error) && isCurrent()) setStatusError(toCompactionError({ error, channel: "status" }));
        throw error;
      }
    },
  });

  const runAction = useCallback(
    async <T>(action: CompactionAction, call: () => Promise<T>, onSuccess?: (value: T) => void): Promise<ActionResult<T>> => {
      const epoch = epochRef.current;
      const seq = ++actionSeqRef.current;
      generationRef.current += 1;
      setActionError(null);
      setBusy(action);
      const latest = () => epochRef.current === epoch && actionSeqRef.current === seq;
      let result: ActionResult<T>;
      try {
        const value = await call();
        result = { ok: true, value };
        if (epochRef.current === epoch) {
          generationRef.current += 1;
          onSuccess?.(value);
        }
      } catch (error) {
        result = { ok: false, error: toCompactionError({ error, channel: "action", action }) };
        if (epochRef.current === epoch) generationRef.current += 1;
        if (latest()) setActionError(result.error);
      }
      if (latest()) setBusy(null);
      if (epochRef.current === epoch) void queryClient.invalidateQueries({ queryKey: compactionKeys.status() });
      return result;
    },
    [queryClient],
  );

  const save = useCallback(
    (body: PutPolicyBody) =>
      runAction("save", () => putCompactionPolicy(body), (data) => queryClient.setQueryData(compactionKeys.status(), data)),
    [runAction, queryClient],
  );
  const analyze = useCallback((age: CompactionAge) => runAction("analyze", () => postAnalyze({ age })), [runAction]);
  const run = useCallback(
    (expectedRevision: number, options?: { outsideWindow?: boolean }) =>
      runAction("run", () => postRun(options?.outsideWindow ? { expectedRevision, outsideWindow: true } : { expectedRevision })),
    [runAction],
  );
  const cancel = useCallback((operationId: string) => runAction("cancel", () => postCancel({ operationId })), [runAction]);

  const refresh = useCallback(async () => {
    setActionError(null);
    await queryClient.refetchQueries({ queryKey: compactionKeys.status(), exact: true });
  }, [queryClient]);

  const dismissActionError = useCallback(() => setActionError(null), []);

  return {
    status: query.data,
    isLoading: query.isPending,
    isFetching: query.isFetching,
    statusError,
    actionError,
    error: actionError ?? statusError,
    busy,
    refresh,
    dismissActionError,
    save,
    analyze,
    run,
    cancel,
  };
}
