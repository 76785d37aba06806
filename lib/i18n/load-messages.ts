// Catalogs: the core catalog messages/<locale>.json plus one folder per
// feature, messages/<feature>/<locale>.json, whose single top-level key is
// the feature's namespace. Features own their folder, so they can be
// translated and reviewed apart; the merge happens once per locale.
import fs from "node:fs";
import path from "node:path";
import { MESSAGE_FEATURES } from "./messages";

export type Catalog = { [key: string]: string | Catalog };

const cache = new Map<string, Catalog>();

export function messagesDir(): string {
  return path.join(process.cwd(), "messages");
}

/** Folders found under messages/; the catalogs test holds them equal to MESSAGE_FEATURES. */
export function featureFolders(dir = messagesDir()): string[] {
  // Test-only listing: the bundler need not trace the folder for it.
  return fs
    .readdirSync(/*turbopackIgnore: true*/ dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

function readCatalog(file: string): Catalog {
  return JSON.parse(fs.readFileSync(file, "utf8")) as Catalog;
}

/** The merged catalog of one locale. A feature may not redefine a core namespace. */
export function loadMessages(locale: string, dir = messagesDir()): Catalog {
  const cached = process.env.NODE_ENV === "production" ? cache.get(locale) : undefined;
  if (cached) return cached;
  const merged: Catalog = { ...readCatalog(path.join(dir, `${locale}.json`)) };
  for (const feature of MESSAGE_FEATURES) {
    const catalog = readCatalog(path.join(dir, feature, `${locale}.json`));
    for (const [namespace, value] of Object.entries(catalog)) {
      if (namespace in merged) throw new Error(`messages/${feature}/${locale}.json redefines namespace "${namespace}"`);
      merged[namespace] = value;
    }
  }
  cache.set(locale, merged);
  return merged;
}
