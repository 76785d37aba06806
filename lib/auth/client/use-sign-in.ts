"use client";
import { useMutation } from "@tanstack/react-query";
import type { LoginBody } from "@/lib/auth/api";
import { postLogin } from "./fetchers";

/** Signs in; the caller navigates on success so every server component sees the new session. */
export function useSignIn() {
  return useMutation({ mutationFn: (body: LoginBody) => postLogin(body) });
}
