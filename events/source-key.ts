/**
 * The key a source (or speaker) is compared by: its name after Unicode NFC, trimmed, with each
 * run of inner white space made one space, so "José" typed in NFC or NFD, or with a stray space,
 * is one source. A private person (named only by a pseudonym the writer gives) is keyed on that
 * pseudonym. The name itself is stored and shown as sent; only comparisons use the key.
 */
export function sourceKey(a: { name: string; kind?: string; ref?: string }): string {
  if (a.kind === "private") return `ref:${a.ref ?? ""}`;
  return a.name.normalize("NFC").trim().replace(/\s+/gu, " ");
}

/**
 * The keys a name someone types to find a source may be stored under: a source's name, or a
 * private person's pseudonym (the only name the archive shows of them).
 */
export function sourceKeysOf(name: string): string[] {
  return [...new Set([sourceKey({ name }), sourceKey({ name, kind: "private", ref: name.trim() })])];
}
