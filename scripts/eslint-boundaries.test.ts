import path from "node:path";
import { ESLint } from "eslint";
import { beforeAll, describe, expect, it } from "vitest";

// The boundary rules of eslint.config.mjs, run through ESLint itself on
// fixture sources placed (virtually) in the rooms they guard.
const RULE = "no-restricted-imports";

let eslint: ESLint;
beforeAll(() => {
  eslint = new ESLint({ cwd: path.resolve(import.meta.dirname, "..") });
});

async function boundaryErrors(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).filter((m) => m.ruleId === RULE).map((m) => m.message);
}

describe("import boundaries", () => {
  it("a component importing server/ fails", async () => {
    const code = `import { currentPageUser } from "@/server/auth/page-user";\nexport const user = currentPageUser;\n`;
    expect(await boundaryErrors("components/boundary/fixture.tsx", code)).toHaveLength(1);
  });

  it("a component importing a server type, or server/ by a relative path, fails", async () => {
    const code = `import type { SessionUser } from "@/server/auth/current-user";\nimport { runtime } from "../../server/runtime";\nexport type U = SessionUser;\nexport const rt = runtime;\n`;
    expect(await boundaryErrors("components/boundary/fixture.tsx", code)).toHaveLength(2);
  });

  it("lib/ importing server/ fails", async () => {
    const code = `import { runtime } from "@/server/runtime";\nexport const rt = runtime;\n`;
    expect(await boundaryErrors("lib/boundary/fixture.ts", code)).toHaveLength(1);
  });

  it("server/ importing lib/*/client fails", async () => {
    const code = `import type { Fixture } from "@/lib/feature/client/fixture-types";\nimport { poll } from "../../lib/feature/client/poll";\nexport type F = Fixture;\nexport const p = poll;\n`;
    expect(await boundaryErrors("server/boundary/fixture.ts", code)).toHaveLength(2);
  });

  it("allowed imports pass: wire types from lib/<feature>/api.ts, server-only, app/ reading the server", async () => {
    const component = `import type { AuthUser } from "@/lib/api/auth";\nexport type U = AuthUser;\n`;
    const server = `import "server-only";\nimport type { AuthUser } from "@/lib/api/auth";\nimport { routing } from "@/lib/i18n/routing";\nexport type U = AuthUser;\nexport const r = routing;\n`;
    const page = `import { currentPageUser } from "@/server/auth/page-user";\nexport const user = currentPageUser;\n`;
    expect(await boundaryErrors("components/boundary/fixture.tsx", component)).toEqual([]);
    expect(await boundaryErrors("server/boundary/fixture.ts", server)).toEqual([]);
    expect(await boundaryErrors("app/boundary/fixture.tsx", page)).toEqual([]);
  });
});
