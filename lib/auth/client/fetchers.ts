// Fetchers of the sign-in API; they reject with ApiError on any failure.
import { meResponseSchema, type LoginBody, type MeResponse } from "@/lib/auth/api";
import { fetchJson, fetchParsed } from "@/lib/query/fetch-json";

export function postLogin(body: LoginBody, signal?: AbortSignal): Promise<MeResponse> {
  return fetchParsed(meResponseSchema, "/api/v1/auth/login", { method: "POST", body, signal });
}

export async function postLogout(signal?: AbortSignal): Promise<void> {
  await fetchJson<unknown>("/api/v1/auth/logout", { method: "POST", signal });
}
