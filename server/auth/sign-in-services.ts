import "server-only";
import { randomBytes } from "node:crypto";
import { parseTrustedProxies, type TrustedProxies } from "@/server/http/client-address";
import type { Logger } from "@/server/log";
import { createPasswordWorkGate, type WorkGate } from "./password/work-gate";

/** Per-process sign-in state the runtime owns. */
export type SignInServices = {
  /** From TRUSTED_PROXIES: the hops whose X-Forwarded-For names the client. */
  trusted: TrustedProxies;
  gate: WorkGate;
  /** Keys the client hash in log lines; new per process, so logs never hold a reversible address. */
  logKey: Buffer;
};

export function createSignInServices(options: { env: Record<string, string | undefined>; log: Logger }): SignInServices {
  const { trusted, invalid } = parseTrustedProxies(options.env.TRUSTED_PROXIES);
  if (invalid.length > 0) {
    // Entries that do not parse trust nothing (the safe side), but say so.
    options.log.warn({ event: "trusted_proxies_invalid", invalid: invalid.length }, "TRUSTED_PROXIES has entries that are not addresses or CIDR ranges; they are ignored");
  }
  return { trusted, gate: createPasswordWorkGate(), logKey: randomBytes(32) };
}
