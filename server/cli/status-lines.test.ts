import { describe, expect, it } from "vitest";
import { formatBytes } from "@/lib/i18n/format";
import { describeBytes } from "./status-lines";

describe("the CLI's sizes", () => {
  it("[#30] read in the cards' one unit system, with the exact count beside them", () => {
    expect(describeBytes(21_077_029)).toBe("21 MB (21,077,029 bytes)");
    expect(describeBytes(999)).toBe("999 B (999 bytes)");
    // The same rounded figure the card shows for the same count.
    for (const bytes of [0, 1500, 170_000, 33_554_432]) expect(describeBytes(bytes).startsWith(`${formatBytes(bytes, "en")} (`)).toBe(true);
  });
});
