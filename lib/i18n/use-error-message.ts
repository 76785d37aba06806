"use client";
import { useTranslations } from "next-intl";
import { useCallback } from "react";
import { clientErrorCode, ERROR_MESSAGES_NAMESPACE, errorMessageKey, type ClientErrorCode, type ErrorFeature } from "./error-messages";

/**
 * A localized sentence for a failed request. Takes the thrown error (ApiError
 * or anything else) or a code string; unknown codes get unknown_error's.
 */
export function useErrorMessage(feature?: ErrorFeature): (error: unknown) => string {
  const t = useTranslations(ERROR_MESSAGES_NAMESPACE);
  return useCallback((error: unknown) => t(errorMessageKey(clientErrorCode(error), feature)), [t, feature]);
}

export type { ClientErrorCode };
