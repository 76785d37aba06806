import { describe, expect, it } from "vitest";
import { withDatabase } from "./url";

describe("withDatabase", () => {
  it("swaps the database of socket and host URLs, keeping the query", () => {
    expect(withDatabase("postgresql://postgres@/postgres?host=/tmp/x", "t_1")).toBe("postgresql://postgres@/t_1?host=/tmp/x");
    expect(withDatabase("postgres://u:p@db:5432", "t_1")).toBe("postgres://u:p@db:5432/t_1");
    expect(() => withDatabase("postgres://db/x", "x; drop")).toThrow();
  });
});
