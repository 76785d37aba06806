// Sign-in outcomes in the audit trail. A refusal names the account only when
// the email belongs to one; the typed email itself is never kept (people
// type passwords into the wrong field). A success is one entry; refusals are
// counted per account, client and window (refusals.ts), never one row each.
import "server-only";
import { findUserByEmail } from "@/server/auth/users";
import type { OpenRuntime } from "@/server/runtime";
import { writeAuditEntry } from "./record";

export async function auditSignIn(
  rt: OpenRuntime,
  options: { email: string; userId: string | null; errorCode: string | null; /** hashedClientKey of the throttle address. */ client: string },
): Promise<void> {
  const actor = options.userId ?? (await findUserByEmail(rt.stores.auth, options.email))?.id ?? "unknown";
  if (options.errorCode === null) {
    await writeAuditEntry(rt.stores.audit, { atMs: rt.clock.now(), actor, kind: "auth.sign_in", detail: { client: options.client }, errorCode: null });
    return;
  }
  await rt.refusals.record({ actor, client: options.client, errorCode: options.errorCode, atMs: rt.clock.now() });
}
