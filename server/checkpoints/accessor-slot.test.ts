import { afterEach, describe, expect, it } from "vitest";
import { createTestRuntime, type TestRuntime } from "@/server/runtime-test-support";
import { threadService } from "./service";

const env = { NODE_ENV: "test" } as NodeJS.ProcessEnv;
const runtimes: TestRuntime[] = [];
afterEach(async () => {
  for (const rt of runtimes.splice(0)) await rt.dispose();
});

describe("the runtime's checkpoint accessor", () => {
  it("is opened once per runtime and connection: two runtimes in one process never share one, a reopened connection gets its own", async () => {
    const a = createTestRuntime({ prefix: "accessor-a-" });
    const b = createTestRuntime({ prefix: "accessor-b-" });
    runtimes.push(a, b);
    const first = threadService(a, env);
    expect(threadService(a, env).accessor).toBe(first.accessor);
    expect(threadService(b, env).accessor).not.toBe(first.accessor);
    // A restore reopens the connection: the next request opens the accessor on the new one.
    const resume = await a.quiescers.quiesceAll();
    a.handle.sqlite.close();
    resume();
    const reopened = threadService(a, env);
    expect(reopened.accessor).not.toBe(first.accessor);
    expect(reopened.store).not.toBe(first.store);
  });
});
