/**
 * The canonical spelling of a BCP 47 tag (`zh-hans` → `zh-Hans`, and deprecated aliases replaced: `iw` → `he`,
 * `in` → `id`, `ji` → `yi`). Releases are stored and filtered by it, so every spelling of a language finds the
 * same releases. A tag the platform cannot canonicalise is kept as given (the contract validated it already).
 */
export function canonicalLanguageTag(tag: string): string {
  try {
    return Intl.getCanonicalLocales(tag)[0] ?? tag;
  } catch {
    return tag;
  }
}
