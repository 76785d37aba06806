import "server-only";
import type { Sqlite } from "@/server/db/client";
import type { Logger } from "@/server/log";
import { countUsers, createUser } from "./users";

export type FirstAdminOptions = {
  sqlite: Sqlite;
  email: string | undefined;
  password: string | undefined;
  nowMs: number;
  log: Logger;
};

/**
 * Creates the first admin from ADMIN_EMAIL/ADMIN_PASSWORD, only while the user
 * table is empty, so restarting with the variables still set changes nothing.
 */
export function ensureFirstAdmin(options: FirstAdminOptions): "created" | "skipped" {
  const { sqlite, email, password, nowMs, log } = options;
  if (!email || !password) return "skipped";
  const created = sqlite.transaction(() => {
    if (countUsers(sqlite) > 0) return false;
    createUser(sqlite, { email, role: "admin", password, nowMs });
    return true;
  }).immediate();
  if (created) log.info({ event: "first_admin_created" }, "created the first admin from ADMIN_EMAIL");
  return created ? "created" : "skipped";
}
