import "server-only";
import { randomBytes } from "node:crypto";
import { parseAllowedHosts, type AllowedHosts } from "@/server/http/allowed-hosts";
import { parseTrustedProxies, type TrustedProxies } from "@/server/http/client-address";
import { peerAddressStampInstalled } from "@/server/http/peer-address";
import { isSecureRequest } from "@/server/http/request-checks";
import { systemTimers, type Timers } from "@/server/clock";
import type { Logger } from "@/server/log";
import { createPasswordWorkGate, type WorkGate } from "./password/work-gate";
import { createRefusalMemo, type RefusalMemo } from "./refusal-memo";
import { createRefusalPace, refusalPauseFromEnv, type RefusalPace } from "./refusal-pace";
import { decoyPasswordHash } from "./users";

/** Per-process sign-in and request-level state the runtime owns. */
export type SignInServices = {
  /** From TRUSTED_PROXIES: the hops whose X-Forwarded-For and X-Forwarded-Proto are believed. */
  trusted: TrustedProxies;
  /** From ALLOWED_HOSTS: the Host names this server answers for. */
  allowedHosts: AllowedHosts;
  gate: WorkGate;
  /** Throttle refusals whose wait still runs, so a flood of 429s takes no write transaction. */
  refusals: RefusalMemo;
  /** Holds a throttled sign-in's 429 for a moment (SIGN_IN_REFUSAL_PAUSE_MS): a retry loop then asks slowly. */
  pace: RefusalPace;
  /** Keys the client hash in log lines; new per process, so logs never hold a reversible address. */
  logKey: Buffer;
  /** True when the client reached this server over HTTPS (directly, or as a trusted proxy says). */
  isSecure(request: Request): boolean;
  /** The hash an unknown email's password is verified against (no user enumeration); made on first use. */
  decoyHash(): string;
};

export function createSignInServices(options: { env: Record<string, string | undefined>; log: Logger; timers?: Timers }): SignInServices {
  const { trusted, invalid } = parseTrustedProxies(options.env.TRUSTED_PROXIES);
  if (invalid.length > 0) {
    // Entries that do not parse trust nothing (the safe side), but say so.
    options.log.warn({ event: "trusted_proxies_invalid", invalid: invalid.length }, "TRUSTED_PROXIES has entries that are not addresses or CIDR ranges; they are ignored");
  }
  let decoy: string | undefined;
  const hosts = parseAllowedHosts(options.env.ALLOWED_HOSTS);
  if (hosts.invalid.length > 0) {
    options.log.warn({ event: "allowed_hosts_invalid", invalid: hosts.invalid.length }, "ALLOWED_HOSTS has entries that are not host names; they are ignored");
  }
  return {
    trusted,
    allowedHosts: hosts.hosts,
    gate: createPasswordWorkGate(),
    refusals: createRefusalMemo(),
    pace: createRefusalPace({ timers: options.timers ?? systemTimers, pauseMs: refusalPauseFromEnv(options.env, options.log) }),
    logKey: randomBytes(32),
    isSecure: (request) => isSecureRequest(request, { trusted, stamped: peerAddressStampInstalled() }),
    decoyHash: () => (decoy ??= decoyPasswordHash()),
  };
}
