/**
 * Two sources are the same source when their names are equal after Unicode NFC normalisation,
 * trimming and collapsing white space (CONTRACT.md "Bounds and hostile input"); a private
 * person is keyed on the pseudonym the writer gave. The name itself is stored as sent.
 */
export function sourceKey(a: { name: string; kind?: string; ref?: string }): string {
  if (a.kind === "private") return `ref:${a.ref ?? ""}`;
  return a.name.normalize("NFC").trim().replace(/\s+/gu, " ");
}
