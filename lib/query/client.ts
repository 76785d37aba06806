import { QueryClient } from "@tanstack/react-query";
import { isApiError } from "./fetch-json";

/**
 * Reads retry once on network or server trouble, never on a client error
 * (4xx answers do not change by asking again). Mutations never retry.
 */
export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        staleTime: 5_000,
        refetchOnWindowFocus: false,
        retry: (failureCount, error) => failureCount < 1 && !(isApiError(error) && error.status >= 400 && error.status < 500),
      },
      mutations: { retry: false },
    },
  });
}
