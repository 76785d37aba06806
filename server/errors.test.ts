import { describe, expect, it } from "vitest";
import { AppError, isAppError } from "./errors";
import type * as ErrorsModule from "./errors";

describe("isAppError", () => {
  it("recognizes an AppError from another copy of the module (route bundles)", async () => {
    // A fresh module instance stands in for another route bundle's copy.
    const copy = (await import(/* @vite-ignore */ `./errors?copy=${Date.now()}`)) as typeof ErrorsModule;
    const foreign = new copy.AppError("conflict", "x");
    expect(foreign instanceof AppError).toBe(false);
    expect(isAppError(foreign)).toBe(true);
    expect(isAppError(new AppError("conflict", "x"))).toBe(true);
  });

  it("rejects plain errors and look-alikes", () => {
    expect(isAppError(new Error("x"))).toBe(false);
    expect(isAppError({ code: "conflict", message: "x" })).toBe(false);
    expect(isAppError(null)).toBe(false);
  });
});
