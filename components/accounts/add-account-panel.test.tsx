// @vitest-environment jsdom
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { NextIntlClientProvider } from "next-intl";
import { afterEach, describe, expect, it, vi } from "vitest";
import accountsEn from "@/messages/accounts/en.json";
import apiErrorsEn from "@/messages/api-errors/en.json";
import databaseEn from "@/messages/database/en.json";
import { AddAccountPanel } from "./add-account-panel";

const t = accountsEn.accounts.add;

const created = {
  account: {
    id: "u2",
    email: "new@example.com",
    role: "viewer",
    status: "active",
    mustChangePassword: true,
    createdAt: "2026-07-01T12:00:00.000Z",
    disabledAt: null,
    lastActiveAt: null,
    liveSessions: 0,
  },
  changed: true,
  endedSessions: 0,
};

/**
 * A fetch that behaves like the browser's on the one point that matters
 * here: a `signal` that is not an AbortSignal makes it throw a TypeError.
 */
function serveLikeABrowser() {
  const calls: { url: string; init: RequestInit }[] = [];
  vi.stubGlobal(
    "fetch",
    vi.fn(async (url: string, init: RequestInit) => {
      if (init.signal !== undefined && init.signal !== null && !(init.signal instanceof AbortSignal)) {
        throw new TypeError("Failed to execute 'fetch': member signal is not of type AbortSignal");
      }
      calls.push({ url, init });
      return new Response(JSON.stringify(created), { status: 201, headers: { "content-type": "application/json" } });
    }),
  );
  return calls;
}

function mount(onCreated: (change: unknown) => void) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false }, mutations: { retry: false } } });
  render(
    <QueryClientProvider client={client}>
      <NextIntlClientProvider locale="en" messages={{ ...databaseEn, ...apiErrorsEn, ...accountsEn }} timeZone="UTC">
        <AddAccountPanel onClose={() => {}} onCreated={onCreated} />
      </NextIntlClientProvider>
    </QueryClientProvider>,
  );
}

describe("the new-account form", () => {
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it("sends the account to the server and reports it created (the mutation's context is not taken for an abort signal)", async () => {
    const calls = serveLikeABrowser();
    const onCreated = vi.fn();
    mount(onCreated);
    fireEvent.change(screen.getByLabelText(t.email), { target: { value: "new@example.com" } });
    fireEvent.change(screen.getByLabelText(accountsEn.accounts.temporary.label), { target: { value: "abcd-efgh-jkmn-pqrs" } });
    fireEvent.click(screen.getByRole("button", { name: t.submit }));
    await vi.waitFor(() => expect(onCreated).toHaveBeenCalledTimes(1));
    expect(onCreated.mock.calls[0]![0]).toMatchObject({ account: { email: "new@example.com" }, changed: true });
    expect(calls).toHaveLength(1);
    expect(calls[0]!.url).toBe("/api/v1/users");
    expect(JSON.parse(String(calls[0]!.init.body))).toEqual({ email: "new@example.com", role: "viewer", temporaryPassword: "abcd-efgh-jkmn-pqrs" });
    expect(screen.queryByTestId("add-account-error")).toBeNull();
  });
});
