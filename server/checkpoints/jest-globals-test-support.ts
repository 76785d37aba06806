// @langchain/langgraph-checkpoint-validation is written against Jest-style
// globals; this module provides vitest's under those names. Import it before
// the suite (the suite itself is imported dynamically afterwards).
import * as vitest from "vitest";

Object.assign(globalThis, {
  describe: vitest.describe,
  it: vitest.it,
  test: vitest.test,
  expect: vitest.expect,
  beforeAll: vitest.beforeAll,
  afterAll: vitest.afterAll,
  beforeEach: vitest.beforeEach,
  afterEach: vitest.afterEach,
});
