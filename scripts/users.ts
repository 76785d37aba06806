// npm run users -- create --email E --role admin|viewer
// The password is read from stdin (never from argv, which other users of the
// machine can see in the process list).
import { parseArgs } from "node:util";
import { systemClock } from "@/server/clock";
import { openDatabase } from "@/server/db/client";
import { parseDatabaseUrl } from "@/server/db/url";
import { isAppError } from "@/server/errors";
import { createUserAudited } from "@/server/audit/user-created";
import { openSqliteStores } from "@/server/stores";

const USAGE = "usage: npm run users -- create --email EMAIL --role admin|viewer   (password on stdin)";

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  // Only the line ending is stripped: blanks inside the password are kept.
  return Buffer.concat(chunks).toString("utf8").replace(/\r?\n$/, "");
}

async function main(): Promise<number> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: { email: { type: "string" }, role: { type: "string" } },
  });
  if (positionals[0] !== "create" || !values.email || (values.role !== "admin" && values.role !== "viewer")) {
    console.error(USAGE);
    return 2;
  }
  if (process.stdin.isTTY) process.stderr.write("Password (then Enter and Ctrl-D): ");
  const password = await readStdin();
  const target = parseDatabaseUrl(process.env.DATABASE_URL);
  if (target.engine !== "sqlite") {
    console.error("users: DATABASE_URL names an unsupported engine");
    return 1;
  }
  const handle = openDatabase({ file: target.file });
  try {
    const input = { email: values.email, role: values.role as "admin" | "viewer", password, nowMs: systemClock.now() };
    const { id } = createUserAudited({ stores: openSqliteStores(handle), clock: systemClock }, { actor: "cli", input });
    console.log(`created ${values.role} ${values.email.trim().toLowerCase()} (id ${id})`);
    return 0;
  } catch (error) {
    if (isAppError(error)) {
      console.error(`users: ${error.message}`);
      return 1;
    }
    throw error;
  } finally {
    handle.sqlite.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`users: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
