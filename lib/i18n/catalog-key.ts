// Keys built at run time (a state, type or author name the API sends) are
// plain strings to the typed translator. This narrows one to a catalog key
// after asking the catalog, so unknown values can fall back to the raw text.
type HasKey<K extends string> = { has: (key: K) => boolean };

/** Whether the translator `t` has a message for `key`; narrows `key` to its keys. */
export function isCatalogKey<K extends string>(t: HasKey<K>, key: string): key is K {
  return t.has(key as K);
}
