import "server-only";
import { isAppError } from "@/server/errors";
import type { Logger } from "@/server/log";
import type { AuthStore } from "./store";
import { countUsers, createUser } from "./users";

export type FirstAdminOptions = {
  store: AuthStore;
  email: string | undefined;
  password: string | undefined;
  nowMs: number;
  log: Logger;
};

/**
 * Creates the first admin from ADMIN_EMAIL/ADMIN_PASSWORD, only while the user
 * table is empty, so restarting with the variables still set changes nothing.
 */
export async function ensureFirstAdmin(options: FirstAdminOptions): Promise<"created" | "skipped" | "refused"> {
  const { store, email, password, nowMs, log } = options;
  if (!email || !password) return "skipped";
  let created: boolean;
  try {
    created = await store.writeTransaction(async (tx) => {
      if ((await countUsers(tx)) > 0) return false;
      await createUser(tx, { email, role: "admin", password, nowMs });
      return true;
    });
  } catch (error) {
    if (!isAppError(error) || error.code !== "invalid_request") throw error;
    // The reason names the rule broken (length, common...), never the password.
    log.error({ event: "first_admin_refused", reason: error.message }, "ADMIN_EMAIL/ADMIN_PASSWORD refused; no admin was created");
    return "refused";
  }
  if (created) log.info({ event: "first_admin_created" }, "created the first admin from ADMIN_EMAIL");
  return created ? "created" : "skipped";
}
