// `npm run users -- <command>`: account management from a terminal, on the
// database DATABASE_URL names (either engine), through the same verbs as the
// Accounts screen, audited with the actor `cli`. Passwords are read from
// stdin, never argv (the process list is readable by other users), with
// the terminal's echo off.
import { parseArgs } from "node:util";
import type { AccountChange } from "@/lib/accounts/api";
import { createUserAudited } from "@/server/audit/user-created";
import { changeAccountRole, disableAccount, enableAccount, resetAccountPassword, type AccountTarget } from "@/server/auth/account-service";
import { accountIdByEmail, listAccounts } from "@/server/auth/account-views";
import { sessionPolicyFromEnv } from "@/server/auth/session-policy";
import type { Clock } from "@/server/clock";
import { isAppError } from "@/server/errors";
import type { Logger } from "@/server/log";
import { openAuthStores } from "./open-auth-stores";
import { readPassword, type PasswordInput, type PromptOutput } from "./read-password";

export const USAGE = `usage: npm run users -- <command>
  create --email EMAIL --role admin|viewer   a new account (password on stdin)
  disable --email EMAIL                      no sign-in; ends every session at once
  enable --email EMAIL                       may sign in again
  role --email EMAIL --role admin|viewer     the role, from the user's next request
  reset-password --email EMAIL               a temporary password (on stdin) the user must change at next sign-in; ends every session
  list                                       every account, its role, state and open sessions`;

export type UsersIo = {
  argv: string[];
  env: Record<string, string | undefined>;
  stdin: PasswordInput;
  stdout: PromptOutput;
  stderr: PromptOutput;
  clock: Clock;
  log: Logger;
};

const COMMANDS = new Set(["create", "disable", "enable", "role", "reset-password", "list"]);

function describe(change: AccountChange, done: string, unchanged: string): string {
  const { account } = change;
  if (!change.changed) return `${account.email}: ${unchanged}`;
  const sessions = change.endedSessions > 0 ? ` (${change.endedSessions} session${change.endedSessions === 1 ? "" : "s"} ended)` : "";
  return `${account.email}: ${done}${sessions}`;
}

/** Runs one command; returns the exit code (0 done, 1 refused or failed, 2 usage). */
export async function runUsersCommand(io: UsersIo): Promise<number> {
  let parsed: ReturnType<typeof parseArgs<{ allowPositionals: true; options: { email: { type: "string" }; role: { type: "string" } } }>>;
  try {
    parsed = parseArgs({ args: io.argv, allowPositionals: true, options: { email: { type: "string" }, role: { type: "string" } } });
  } catch {
    io.stderr.write(`${USAGE}\n`);
    return 2;
  }
  const { positionals, values } = parsed;
  const command = positionals[0] ?? "";
  const role = values.role === "admin" || values.role === "viewer" ? values.role : null;
  const needsRole = command === "create" || command === "role";
  if (!COMMANDS.has(command) || positionals.length !== 1 || (command !== "list" && !values.email) || (needsRole && !role) || (!needsRole && values.role !== undefined)) {
    io.stderr.write(`${USAGE}\n`);
    return 2;
  }
  const email = values.email ?? "";
  // Asked before the database is opened: nothing waits on a person typing.
  const password =
    command === "create" || command === "reset-password"
      ? await readPassword({ input: io.stdin, output: io.stderr, label: command === "create" ? "Password" : "Temporary password" })
      : "";
  const opened = await openAuthStores(io.env, io.log);
  try {
    const target: AccountTarget = { stores: opened.stores, clock: io.clock, sessionPolicy: sessionPolicyFromEnv(io.env, io.log), streams: null };
    const idOf = () => accountIdByEmail(opened.stores.auth, email);
    let line: string;
    switch (command) {
      case "create": {
        const { id } = await createUserAudited(target, { actor: "cli", input: { email, role: role!, password, nowMs: io.clock.now() } });
        line = `created ${role} ${email.trim().toLowerCase()} (id ${id})`;
        break;
      }
      case "disable":
        line = describe(await disableAccount(target, { actor: "cli", userId: await idOf() }), "disabled", "already disabled");
        break;
      case "enable":
        line = describe(await enableAccount(target, { actor: "cli", userId: await idOf() }), "enabled", "already enabled");
        break;
      case "role":
        line = describe(await changeAccountRole(target, { actor: "cli", userId: await idOf(), role: role! }), `now ${role}`, `already ${role}`);
        break;
      case "reset-password":
        line = describe(
          await resetAccountPassword(target, { actor: "cli", userId: await idOf(), temporaryPassword: password, gate: null }),
          "temporary password set; it must be changed at next sign-in",
          "unchanged",
        );
        break;
      default: {
        const { accounts } = await listAccounts(target, { selfId: "" });
        line = accounts
          .map((a) => [a.email, a.role, a.status, a.mustChangePassword ? "must-change-password" : "", `${a.liveSessions} session${a.liveSessions === 1 ? "" : "s"}`].filter(Boolean).join("\t"))
          .join("\n");
      }
    }
    if (line) io.stdout.write(`${line}\n`);
    return 0;
  } catch (error) {
    if (isAppError(error)) {
      io.stderr.write(`users: ${error.message}\n`);
      return 1;
    }
    throw error;
  } finally {
    await opened.close();
  }
}
