"use client";
import { useTranslations } from "next-intl";
import { passwordProblemSchema } from "@/lib/accounts/api";
import { useErrorMessage } from "@/lib/i18n/use-error-message";
import { isApiError } from "@/lib/query/fetch-json";

/** A refused change in the reader's language: the broken password rule when the server named one, else the code's sentence. */
export function useAccountError(): (error: unknown) => string {
  const t = useTranslations("accounts.problems");
  const errorMessage = useErrorMessage();
  return (error: unknown) => {
    const problem = isApiError(error) ? passwordProblemSchema.safeParse((error.body as { passwordProblem?: unknown } | null)?.passwordProblem) : null;
    return problem?.success ? t(problem.data) : errorMessage(error);
  };
}
