// @vitest-environment jsdom
import { act, cleanup, fireEvent, render, screen } from "@testing-library/react";
import { NextIntlClientProvider } from "next-intl";
import { afterEach, describe, expect, it, vi } from "vitest";
import feature from "@/messages/compaction/en.json";
import { SaveBar } from "./save-bar";
import { createSaveBarStore, type SaveContributor } from "./save-bar-store";

afterEach(cleanup);

function contributor(patch: Partial<SaveContributor> = {}): SaveContributor {
  return { id: "system:tool-payload-retention", label: "Messages compaction", dirty: true, canSave: true, saving: false, save: vi.fn(async () => true), discard: vi.fn(), ...patch };
}

function renderBar(store = createSaveBarStore()) {
  render(
    <NextIntlClientProvider locale="en" messages={feature} timeZone="UTC">
      <SaveBar store={store} />
    </NextIntlClientProvider>,
  );
  return store;
}

describe("page-level save bar", () => {
  it("[TPR-UI-07] shows only while a contributor is dirty and saves or discards through it", async () => {
    const store = renderBar();
    expect(screen.queryByTestId("save-bar")).toBeNull();
    const card = contributor();
    act(() => store.set(card));
    expect(screen.getByTestId("save-bar").textContent).toContain("Messages compaction");
    await act(async () => fireEvent.click(screen.getByRole("button", { name: "Save changes" })));
    expect(card.save).toHaveBeenCalledTimes(1);
    fireEvent.click(screen.getByRole("button", { name: "Discard" }));
    expect(card.discard).toHaveBeenCalledTimes(1);
    act(() => store.set({ ...card, dirty: false }));
    expect(screen.queryByTestId("save-bar")).toBeNull();
  });

  it("[TPR-UI-07] Save waits for every dirty contributor to be savable and is busy while saving", () => {
    const store = renderBar();
    act(() => store.set(contributor({ canSave: false })));
    expect((screen.getByRole("button", { name: "Save changes" }) as HTMLButtonElement).disabled).toBe(true);
    act(() => store.set(contributor({ saving: true })));
    expect(screen.getByRole("button", { name: "Saving…" }).getAttribute("aria-busy")).toBe("true");
  });

  it("[TPR-UI-07] guards navigation while anything is unsaved, and stops when it is removed", () => {
    const store = renderBar();
    act(() => store.set(contributor()));
    const first = new Event("beforeunload", { cancelable: true });
    window.dispatchEvent(first);
    expect(first.defaultPrevented).toBe(true);
    act(() => store.remove("system:tool-payload-retention"));
    const second = new Event("beforeunload", { cancelable: true });
    window.dispatchEvent(second);
    expect(second.defaultPrevented).toBe(false);
  });
});
