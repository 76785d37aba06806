// @vitest-environment jsdom
import { act, cleanup, renderHook } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import type { CompactionPolicy } from "@/lib/compaction/policy";
import type { PutPolicyBody } from "@/lib/compaction/api";
import { toCompactionError } from "./errors";
import { ApiError } from "@/lib/query/fetch-json";
import { statusBody } from "./test-support";
import type { ActionResult } from "./use-compaction";
import { useCompactionDraft } from "./use-compaction-draft";
import type { CompactionStatusBody } from "@/lib/compaction/api";

afterEach(cleanup);

const policy = (revision: number, patch: Partial<CompactionPolicy> = {}): CompactionPolicy => ({ enabled: false, age: { value: 3, unit: "months" }, revision, ...patch });

function failure(status: number, code: string): ActionResult<CompactionStatusBody> {
  const error = new ApiError({ status, code: code as ApiError["code"], message: code, body: null, retryAfterSeconds: null });
  return { ok: false, error: toCompactionError({ error, channel: "action", action: "save" }) };
}

function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

function mount(initial: CompactionPolicy) {
  return renderHook(({ serverPolicy }) => useCompactionDraft({ serverPolicy }), { initialProps: { serverPolicy: initial } });
}

describe("useCompactionDraft", () => {
  it("[TPR-UI-07] enabling requires the inline backup choice, and skip needs the acknowledgement", () => {
    const { result } = mount(policy(1));
    act(() => result.current.setEnabled(true));
    expect(result.current.dirty).toBe(true);
    expect(result.current.needsChoice).toBe(true);
    expect(result.current.canSave).toBe(false);
    act(() => result.current.setChoice("skip"));
    expect(result.current.canSave).toBe(false);
    act(() => result.current.setAcknowledged(true));
    expect(result.current.canSave).toBe(true);
    act(() => result.current.setChoice("backup"));
    expect(result.current.canSave).toBe(true);
  });

  it("[TPR-UI-07] the save sends the draft, expected revision and choice", async () => {
    const { result } = mount(policy(4));
    act(() => {
      result.current.setEnabled(true);
      result.current.setAgeValue("2");
      result.current.setAgeUnit("weeks");
      result.current.setChoice("backup");
    });
    const sent: PutPolicyBody[] = [];
    await act(() =>
      result.current.save(async (body) => {
        sent.push(body);
        return { ok: true, value: statusBody({ policy: policy(5, { enabled: true, age: { value: 2, unit: "weeks" } }) }) };
      }),
    );
    expect(sent).toEqual([{ policy: { enabled: true, age: { value: 2, unit: "weeks" } }, expectedRevision: 4, preparation: "backup" }]);
    expect(result.current.dirty).toBe(false);
    expect(result.current.base?.revision).toBe(5);
  });

  it("[TPR-UI-07] edits made while a save is in flight survive it", async () => {
    const { result } = mount(policy(1, { enabled: true }));
    act(() => result.current.setAgeValue("6"));
    const answer = deferred<ActionResult<CompactionStatusBody>>();
    let saving: Promise<boolean> = Promise.resolve(false);
    act(() => {
      saving = result.current.save(() => answer.promise);
    });
    expect(result.current.saving).toBe(true);
    act(() => result.current.setAgeValue("9"));
    answer.resolve({ ok: true, value: statusBody({ policy: policy(2, { enabled: true, age: { value: 6, unit: "months" } }) }) });
    await act(() => saving);
    expect(result.current.draft?.ageValue).toBe("9");
    expect(result.current.base?.age.value).toBe(6);
    expect(result.current.dirty).toBe(true);
  });

  it("[TPR-UI-07] 400 backup_choice_required asks for the inline choice", async () => {
    // Lengthening needs no choice here; the server may still ask (its approval changed meanwhile).
    const { result } = mount(policy(1, { enabled: true, age: { value: 6, unit: "months" } }));
    act(() => result.current.setAgeValue("12"));
    expect(result.current.needsChoice).toBe(false);
    await act(() => result.current.save(async () => failure(400, "backup_choice_required")));
    expect(result.current.needsChoice).toBe(true);
    expect(result.current.draft?.ageValue).toBe("12");
  });

  it("[TPR-UI-07] [TPR-PREP-02] a draft that shortens the period asks for the choice at once and Save waits for it", () => {
    const { result } = mount(policy(1, { enabled: true, age: { value: 6, unit: "months" } }));
    act(() => result.current.setAgeValue("1"));
    expect(result.current.needsChoice).toBe(true);
    expect(result.current.canSave).toBe(false);
    act(() => result.current.setChoice("backup"));
    expect(result.current.canSave).toBe(true);
    // 6 months -> 26 weeks: the same rule as the server, not today's cutoffs.
    act(() => result.current.discard());
    act(() => result.current.setAgeUnit("weeks"));
    act(() => result.current.setAgeValue("26"));
    expect(result.current.needsChoice).toBe(true);
    expect(result.current.canSave).toBe(false);
    // 6 months -> 27 weeks is longer on every date: no choice.
    act(() => result.current.setAgeValue("27"));
    expect(result.current.needsChoice).toBe(false);
    expect(result.current.canSave).toBe(true);
  });

  it("[TPR-UI-07] an enabled policy that is not approved (preparation pending) asks for the choice on any change", () => {
    const serverPolicy = policy(1, { enabled: true, age: { value: 6, unit: "months" } });
    const { result } = renderHook(() => useCompactionDraft({ serverPolicy, approved: false }));
    act(() => result.current.setAgeValue("12"));
    expect(result.current.needsChoice).toBe(true);
  });

  it("[TPR-UI-07] a 409 keeps the draft; the user can rebase on the server revision or take the server version", async () => {
    const hook = mount(policy(1));
    const { result } = hook;
    act(() => result.current.setAgeValue("8"));
    await act(() => result.current.save(async () => failure(409, "conflict")));
    expect(result.current.conflict).toBe(true);
    // The status refetch brings the other administrator's policy; the dirty draft stays.
    hook.rerender({ serverPolicy: policy(2, { age: { value: 2, unit: "weeks" } }) });
    expect(result.current.draft?.ageValue).toBe("8");
    act(() => result.current.keepMine());
    expect(result.current.conflict).toBe(false);
    expect(result.current.base?.revision).toBe(2);
    expect(result.current.draft?.ageValue).toBe("8");

    await act(() => result.current.save(async () => failure(409, "conflict")));
    hook.rerender({ serverPolicy: policy(3, { age: { value: 4, unit: "weeks" } }) });
    act(() => result.current.adoptServerVersion());
    expect(result.current.draft).toEqual({ enabled: false, ageValue: "4", ageUnit: "weeks" });
    expect(result.current.dirty).toBe(false);
  });

  it("[TPR-UI-08] disabling needs no choice and is always savable", () => {
    const { result } = mount(policy(1, { enabled: true }));
    act(() => result.current.setEnabled(false));
    expect(result.current.needsChoice).toBe(false);
    expect(result.current.canSave).toBe(true);
  });

  it("a clean draft follows the server; a dirty one does not", () => {
    const hook = mount(policy(1));
    hook.rerender({ serverPolicy: policy(2, { age: { value: 5, unit: "months" } }) });
    expect(hook.result.current.draft?.ageValue).toBe("5");
    act(() => hook.result.current.setAgeValue("7"));
    hook.rerender({ serverPolicy: policy(3, { age: { value: 9, unit: "months" } }) });
    expect(hook.result.current.draft?.ageValue).toBe("7");
  });

  it("an out-of-range or non-integer age cannot be saved", () => {
    const { result } = mount(policy(1));
    for (const text of ["0", "121", "1.5", "", "abc"]) {
      act(() => result.current.setAgeValue(text));
      expect(result.current.age, text).toBeNull();
      expect(result.current.canSave).toBe(false);
    }
  });
});

describe("useCompactionDraft after a failed backup", () => {
  it("[TPR-UI-08] a failed preparation is retried by saving the same policy with a new choice", async () => {
    const enabled = policy(3, { enabled: true });
    const { result } = renderHook(() => useCompactionDraft({ serverPolicy: enabled, preparationFailed: true }));
    expect(result.current.dirty).toBe(false);
    expect(result.current.needsChoice).toBe(true);
    expect(result.current.pendingRetry).toBe(false);
    act(() => result.current.setChoice("backup"));
    expect(result.current.pendingRetry).toBe(true);
    expect(result.current.canSave).toBe(true);
    const sent: PutPolicyBody[] = [];
    await act(() =>
      result.current.save(async (body) => {
        sent.push(body);
        return { ok: true, value: statusBody({ policy: enabled }) };
      }),
    );
    expect(sent[0]).toEqual({ policy: { enabled: true, age: { value: 3, unit: "months" } }, expectedRevision: 3, preparation: "backup" });
  });
});
