import path from "node:path";
import { ESLint } from "eslint";
import { beforeAll, describe, expect, it } from "vitest";

// The boundary rules of eslint.config.mjs, run through ESLint itself on
// fixture sources placed (virtually) in the rooms they guard.
const RULE = "no-restricted-imports";

// The server side is linted with types (projectService); the fixtures exist
// only in memory, so the project service is told to accept them, as it does
// for files outside tsconfig.
const VIRTUAL_TYPED = ["server/boundary/*.ts"];

let eslint: ESLint;
beforeAll(() => {
  eslint = new ESLint({
    cwd: path.resolve(import.meta.dirname, ".."),
    overrideConfig: { files: VIRTUAL_TYPED, languageOptions: { parserOptions: { projectService: { allowDefaultProject: VIRTUAL_TYPED } } } },
  });
});

async function boundaryErrors(filePath: string, code: string): Promise<number> {
  const [result] = await eslint.lintText(code, { filePath });
  const messages = result?.messages ?? [];
  // A fixture that does not parse reports no rule at all: that must fail the
  // case, or "0 errors expected" would pass on a parse error.
  expect(messages.filter((m) => m.fatal).map((m) => m.message)).toEqual([]);
  return messages.filter((m) => m.ruleId === RULE).length;
}

const source = (...imports: string[]): string => `${imports.join("\n")}\nexport {};\n`;

const cases: { name: string; file: string; code: string; errors: number }[] = [
  { name: "a component importing server/ fails", file: "components/boundary/fixture.tsx", code: source(`import { currentPageUser } from "@/server/auth/page-user";`), errors: 1 },
  {
    name: "a component importing a server type, or server/ by a relative path, fails",
    file: "components/boundary/fixture.tsx",
    code: source(`import type { SessionUser } from "@/server/auth/current-user";`, `import { runtime } from "../../server/runtime";`),
    errors: 2,
  },
  { name: "lib/ importing server/ fails", file: "lib/boundary/fixture.ts", code: source(`import { runtime } from "@/server/runtime";`), errors: 1 },
  {
    name: "server/ importing lib/*/client fails",
    file: "server/boundary/fixture.ts",
    code: source(`import type { Fixture } from "@/lib/feature/client/fixture-types";`, `import { poll } from "../../lib/feature/client/poll";`),
    errors: 2,
  },
  { name: "a component may take wire types from lib/", file: "components/boundary/fixture.tsx", code: source(`import type { AuthUser } from "@/lib/api/auth";`), errors: 0 },
  {
    name: "server/ may import server-only and lib/ outside client/",
    file: "server/boundary/fixture.ts",
    code: source(`import "server-only";`, `import type { AuthUser } from "@/lib/api/auth";`, `import { routing } from "@/lib/i18n/routing";`),
    errors: 0,
  },
  { name: "app/ may read the server", file: "app/boundary/fixture.tsx", code: source(`import { currentPageUser } from "@/server/auth/page-user";`), errors: 0 },
];

describe("import boundaries", () => {
  it.each(cases)("$name", async ({ file, code, errors }) => {
    expect(await boundaryErrors(file, code)).toBe(errors);
  });
});
