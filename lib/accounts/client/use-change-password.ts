"use client";
import { useMutation } from "@tanstack/react-query";
import type { ChangePasswordBody } from "@/lib/accounts/api";
import { postChangePassword } from "./fetchers";

/** The signed-in user's own new password; the caller navigates on success so every page sees the cleared mark. */
export function useChangePassword() {
  return useMutation({ mutationFn: (body: ChangePasswordBody) => postChangePassword(body) });
}
