import { z } from "zod";

export const loginBodySchema = z.strictObject({
  email: z.string().trim().min(1).max(320),
  password: z.string().min(1).max(1024),
});
export type LoginBody = z.infer<typeof loginBodySchema>;

export type AuthUser = { id: string; email: string; role: "admin" | "viewer" };
export type MeResponse = { user: AuthUser };
