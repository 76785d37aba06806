// Sign-in outcomes in the audit trail. A refusal names the account only when
// the email belongs to one; the typed email itself is never kept (people
// type passwords into the wrong field).
import "server-only";
import { findUserByEmail } from "@/server/auth/users";
import type { OpenRuntime } from "@/server/runtime";
import { writeAuditEntry } from "./record";

export function auditSignIn(rt: OpenRuntime, options: { email: string; userId: string | null; errorCode: string | null }): void {
  const actor = options.userId ?? findUserByEmail(rt.stores.auth, options.email)?.id ?? "unknown";
  writeAuditEntry(rt.stores.audit, { atMs: rt.clock.now(), actor, kind: "auth.sign_in", detail: {}, errorCode: options.errorCode });
}
