import { describe, expect, it } from "vitest";
import { createLogger } from "@/server/log";
import { createSignInServices } from "./sign-in-services";
import { verifyPassword } from "./users";

const log = createLogger({ level: "silent" });

describe("sign-in services", () => {
  it("each runtime's services make their own decoy hash, once; no password matches it", async () => {
    const a = createSignInServices({ env: {}, log });
    const b = createSignInServices({ env: {}, log });
    const decoy = a.decoyHash();
    expect(decoy).toMatch(/^scrypt\$/);
    expect(a.decoyHash()).toBe(decoy);
    expect(b.decoyHash()).not.toBe(decoy);
    expect(await verifyPassword("", decoy)).toBe(false);
  });
});
