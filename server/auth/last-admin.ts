import "server-only";
import { AppError } from "@/server/errors";
import type { AuthStore, UserRecord } from "./store";

/**
 * Refuses a change that would take `user` out of the enabled admins when no
 * other enabled admin is left: nobody could then manage accounts from the
 * console. Called inside the writer transaction of the change, so two
 * admins demoting each other at once cannot both pass.
 */
export async function assertNotLastAdmin(tx: AuthStore, user: UserRecord): Promise<void> {
  if (user.role !== "admin" || user.disabledAtMs !== null) return;
  if (await tx.countEnabledAdmins() <= 1) {
    throw new AppError("last_admin", "This is the last enabled admin: make another admin first");
  }
}
