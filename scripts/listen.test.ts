import { describe, expect, it } from "vitest";
import { MAX_HEADER_BYTES, displayUrl, nextServerArgv, nextStartArgs } from "./lib/listen";

describe("where npm start and npm run demo listen", () => {
  it("[finding 11] binds next start to 127.0.0.1 unless HOST is set", () => {
    expect(nextStartArgs({})).toEqual(["start", "-H", "127.0.0.1", "-p", "3000"]);
    expect(nextStartArgs({ HOST: "", PORT: "4000" })).toEqual(["start", "-H", "127.0.0.1", "-p", "4000"]);
    expect(nextStartArgs({ HOST: "0.0.0.0" })).toEqual(["start", "-H", "0.0.0.0", "-p", "3000"]);
  });

  it("prints a URL a browser on this machine can open", () => {
    expect(displayUrl({})).toBe("http://localhost:3000");
    expect(displayUrl({ HOST: "0.0.0.0", PORT: "8080" })).toBe("http://localhost:8080");
    expect(displayUrl({ HOST: "192.0.2.10" })).toBe("http://192.0.2.10:3000");
    expect(displayUrl({ HOST: "fd00::2" })).toBe("http://[fd00::2]:3000");
  });

  it("[#26-2] runs next start with Node's header bound at 8 KiB, before the server's own arguments", () => {
    expect(MAX_HEADER_BYTES).toBe(8192);
    expect(nextServerArgv("/x/next", nextStartArgs({ PORT: "4000" }))).toEqual(["--max-http-header-size=8192", "/x/next", "start", "-H", "127.0.0.1", "-p", "4000"]);
  });
});
