/**
 * The key two spellings of one source share: NFC, trimmed, white space collapsed. A private
 * source (`kind === "private"`) is keyed by its reference, never its name.
 */
export function sourceKey(a: { name: string; kind?: string; ref?: string }): string {
  if (a.kind === "private") return `ref:${a.ref ?? ""}`;
  return a.name.normalize("NFC").trim().replace(/\s+/g, " ");
}
