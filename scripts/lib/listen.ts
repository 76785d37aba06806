// Where the production server listens. Loopback unless HOST says otherwise:
// a fresh install is not reachable from the network until its operator
// chooses to expose it (README, Security).
export const DEFAULT_HOST = "127.0.0.1";
export const DEFAULT_PORT = "3000";

export function listenAddress(env: Record<string, string | undefined>): { host: string; port: string } {
  return { host: env.HOST?.trim() || DEFAULT_HOST, port: env.PORT?.trim() || DEFAULT_PORT };
}

/** Arguments for `next start` bound to HOST and PORT. */
export function nextStartArgs(env: Record<string, string | undefined>): string[] {
  const { host, port } = listenAddress(env);
  return ["start", "-H", host, "-p", port];
}

// Node's HTTP parser refuses a request whose request line and headers pass
// this many bytes with 431, before any JavaScript runs: an anonymous client
// cannot make the server walk a 15,000-character path through routing and
// locale negotiation. 8 KiB is what common reverse proxies allow by default
// (Node's own default is 16 KiB); our longest URL and cookies are far below.
export const MAX_HEADER_BYTES = 8 * 1024;

/** Node's arguments to run `next start` (nextStartArgs) with the header bound. */
export function nextServerArgv(nextBin: string, startArgs: string[]): string[] {
  return [`--max-http-header-size=${MAX_HEADER_BYTES}`, nextBin, ...startArgs];
}

/** The URL to print: loopback and wildcard addresses are reached through localhost. */
export function displayUrl(env: Record<string, string | undefined>): string {
  const { host, port } = listenAddress(env);
  const shown = ["127.0.0.1", "0.0.0.0", "::"].includes(host) ? "localhost" : host.includes(":") ? `[${host}]` : host;
  return `http://${shown}:${port}`;
}
