// Every skip reason a pass can count has a name on the card in every
// locale, translated (the English label is not copied), so a new reason can
// never reach the card as a bare code.
import { describe, expect, it } from "vitest";
import { loadMessages, type Catalog } from "@/lib/i18n/load-messages";
import { LOCALES } from "@/lib/i18n/routing";
import { ROW_SKIP_REASONS, SKIP_REASONS } from "./skip-reasons";

const reasons = (locale: string) => ((loadMessages(locale).compaction as Catalog).reasons as Catalog);
const hints = (locale: string) => ((loadMessages(locale).compaction as Catalog).reasonHints as Catalog);

describe("skip reasons on the card", () => {
  it.each(LOCALES)("[TPR-OBS-01] %s names every skip reason", (locale) => {
    const labels = reasons(locale);
    for (const reason of SKIP_REASONS) expect(typeof labels[reason], reason).toBe("string");
    if (locale === "en") return;
    const english = reasons("en");
    for (const reason of ROW_SKIP_REASONS) expect(labels[reason], `${locale} ${reason}`).not.toBe(english[reason]);
  });

  // The scan details say what to do about each reason (issue 30): a reason without a hint would show a missing-message key.
  it.each(LOCALES)("[#30] %s says what to do about every skip reason", (locale) => {
    const text = hints(locale);
    for (const reason of SKIP_REASONS) expect(typeof text[reason], `${locale} ${reason}`).toBe("string");
    if (locale === "en") return;
    const english = hints("en");
    for (const reason of SKIP_REASONS) expect(text[reason], `${locale} ${reason}`).not.toBe(english[reason]);
  });

  it("includes the reasons of rows with hostile stored values", () => {
    expect(ROW_SKIP_REASONS).toEqual(expect.arrayContaining(["not_text", "write_refused"]));
  });
});
