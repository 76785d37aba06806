// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { QueryClientProvider } from "@tanstack/react-query";
import { NextIntlClientProvider } from "next-intl";
import { createQueryClient } from "@/lib/query/client";
import { afterEach, describe, expect, it, vi } from "vitest";
import en from "@/messages/en.json";
import zhHk from "@/messages/zh-hk.json";
import { SignInForm } from "./sign-in-form";

function answer(status: number, body: unknown, headers: Record<string, string> = {}) {
  vi.stubGlobal("fetch", vi.fn(async () => new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } })));
}

function renderForm(locale: string, messages: typeof en) {
  render(
    <NextIntlClientProvider locale={locale} messages={messages} timeZone="UTC">
      <QueryClientProvider client={createQueryClient()}>
        <SignInForm next="/en/settings/data-logs/database" changePasswordPath="/en/change-password" />
      </QueryClientProvider>
    </NextIntlClientProvider>,
  );
  fireEvent.change(screen.getByLabelText(messages.signIn.email), { target: { value: "a@example.com" } });
  fireEvent.change(screen.getByLabelText(messages.signIn.password), { target: { value: "secret-pass" } });
  fireEvent.click(screen.getByRole("button", { name: messages.signIn.submit }));
}

describe("sign-in form", () => {
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it("[TPR-UI-15] a wrong password shows the localized invalid-credentials error", async () => {
    answer(401, { error: { code: "invalid_credentials", message: "Invalid email or password" } });
    renderForm("zh-hk", zhHk);
    const alert = await screen.findByRole("alert");
    expect(alert.textContent).toContain(zhHk.signIn.invalidCredentials);
  });

  it("[TPR-UI-15] a throttled sign-in shows the localized wait in minutes from Retry-After", async () => {
    answer(429, { error: { code: "too_many_requests", message: "Too many" } }, { "retry-after": "61" });
    renderForm("en", en);
    const alert = await screen.findByRole("alert");
    expect(alert.textContent).toContain("Try again in 2 minutes.");
  });

  it("the right password of a disabled account says so, in the reader's language", async () => {
    answer(403, { error: { code: "account_disabled", message: "This account is disabled" } });
    renderForm("zh-hk", zhHk);
    expect((await screen.findByRole("alert")).textContent).toContain(zhHk.signIn.accountDisabled);
  });

  it("a temporary password goes to the password change first, then on to where the user was going", async () => {
    const assign = vi.fn();
    vi.stubGlobal("location", { ...window.location, assign });
    answer(200, { user: { id: "u1", email: "a@example.com", role: "viewer", mustChangePassword: true } });
    renderForm("en", en);
    await vi.waitFor(() => expect(assign).toHaveBeenCalled());
    expect(assign).toHaveBeenCalledWith(`/en/change-password?next=${encodeURIComponent("/en/settings/data-logs/database")}`);
  });

  it("an empty form asks for both fields without calling the server", async () => {
    const fetchSpy = vi.fn();
    vi.stubGlobal("fetch", fetchSpy);
    render(
      <NextIntlClientProvider locale="en" messages={en} timeZone="UTC">
        <QueryClientProvider client={createQueryClient()}>
          <SignInForm next="/en" changePasswordPath="/en/change-password" />
        </QueryClientProvider>
      </NextIntlClientProvider>,
    );
    fireEvent.click(screen.getByRole("button", { name: en.signIn.submit }));
    expect((await screen.findByRole("alert")).textContent).toContain(en.signIn.invalidInput);
    expect(fetchSpy).not.toHaveBeenCalled();
  });
});
