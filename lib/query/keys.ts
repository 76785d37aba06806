// Query keys in one place so invalidations and reads agree.
export const queryKeys = {
  me: ["auth", "me"] as const,
};
