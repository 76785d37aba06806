// User creation with its audit entry in the same writer transaction.
import "server-only";
import type { AuthStore } from "@/server/auth/store";
import { createUser, type CreateUserInput } from "@/server/auth/users";
import type { Clock } from "@/server/clock";
import { audited, type AuditActor } from "./record";
import type { AuditStore } from "./store";

export async function createUserAudited(
  target: { stores: { auth: AuthStore; audit: AuditStore }; clock: Clock },
  options: { actor: AuditActor; input: CreateUserInput },
): Promise<{ id: string }> {
  const { input } = options;
  return audited(
    target,
    { actor: options.actor, kind: "user.created", detail: ({ id }) => ({ userId: id, role: input.role }), failureDetail: { role: input.role } },
    () => createUser(target.stores.auth, input),
  );
}
