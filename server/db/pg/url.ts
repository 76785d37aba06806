/** The same server URL naming another database (libpq URLs may have no host: `postgresql://user@/db?host=/socket/dir`). */
export function withDatabase(url: string, database: string): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(database)) throw new Error(`unsafe database name "${database}"`);
  const match = /^(postgres(?:ql)?:\/\/[^/?#]*)(\/[^?#]*)?(.*)$/i.exec(url);
  if (!match) throw new Error("not a postgres:// URL");
  return `${match[1]}/${database}${match[3]}`;
}
