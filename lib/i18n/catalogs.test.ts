import { createTranslator } from "next-intl";
import { describe, expect, it } from "vitest";
import { featureFolders, loadMessages, type Catalog } from "./load-messages";
import { MESSAGE_FEATURES, type Messages } from "./messages";
import { LOCALES } from "./routing";

// The merged catalog (core + every feature folder) is what the app shows.
const load = (locale: string): Catalog => loadMessages(locale);

function leafKeys(catalog: Catalog, prefix = ""): string[] {
  return Object.entries(catalog).flatMap(([key, value]) =>
    typeof value === "string" ? [`${prefix}${key}`] : leafKeys(value, `${prefix}${key}.`),
  );
}

function placeholders(text: string): string[] {
  return [...text.matchAll(/\{(\w+)/g)].map((m) => m[1]!).sort();
}

describe("message catalogs", () => {
  it("every feature folder has all five locales and merges without clashes", () => {
    for (const locale of LOCALES) expect(() => loadMessages(locale)).not.toThrow();
    // One list drives both the merge and the message type: no folder may be left out of it.
    expect(featureFolders()).toEqual([...MESSAGE_FEATURES].sort());
  });

  const en = load("en");
  const enKeys = leafKeys(en).sort();

  it.each(LOCALES)("[TPR-UI-15] %s has exactly the same keys as en", (locale) => {
    expect(leafKeys(load(locale)).sort()).toEqual(enKeys);
  });

  it.each(LOCALES)("[TPR-UI-15] %s keeps every placeholder and has no empty string", (locale) => {
    const catalog = load(locale);
    const get = (c: Catalog, key: string): string => key.split(".").reduce<Catalog | string>((v, k) => (v as Catalog)[k]!, c) as string;
    for (const key of enKeys) {
      const text = get(catalog, key);
      expect(text.trim(), key).not.toBe("");
      expect(placeholders(text), key).toEqual(placeholders(get(en, key)));
    }
  });

  it("[TPR-UI-15] translated catalogs are not copies of English", () => {
    for (const locale of LOCALES.filter((l) => l !== "en")) {
      const catalog = load(locale);
      const same = enKeys.filter((key) => !key.startsWith("locale.names.") && JSON.stringify(key.split(".").reduce<unknown>((v, k) => (v as Catalog)[k], catalog)) === JSON.stringify(key.split(".").reduce<unknown>((v, k) => (v as Catalog)[k], en)));
      // Brand-like words (e.g. "Email" in Portuguese) may coincide; whole catalogs may not.
      expect(same.length, `${locale}: ${same.join(", ")}`).toBeLessThan(3);
    }
  });

  it("[#30] pt-pt names checkpoints one way: pontos de controlo, never the English word beside it", () => {
    const catalog = load("pt-pt");
    const get = (key: string) => key.split(".").reduce<Catalog | string>((v, k) => (v as Catalog)[k]!, catalog) as string;
    // ICU argument names ({checkpoints, plural, ...}) are code, not words.
    const english = enKeys.filter((key) => /checkpoint/i.test(get(key).replace(/\{\w+/g, "")));
    expect(english).toEqual([]);
  });

  it("the message type is the merged English catalog: a missing key does not type-check", () => {
    const t = createTranslator({ locale: "en", messages: load("en") as Messages, onError: () => {} });
    expect(t("app.name")).not.toBe("app.name");
    expect(t("conversation.untitled")).not.toBe("conversation.untitled");
    // @ts-expect-error -- not in any catalog; tsc rejects it
    expect(t("app.noSuchKey")).toBe("app.noSuchKey");
  });
});
