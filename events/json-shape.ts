/**
 * Objects and arrays a body (or an imported line) may nest. An event nests six at most
 * (`data.victims[i].nameVariants`); every walk over a body (validation, sealing, canonical
 * JSON) recurses, so a few kilobytes of brackets must be refused before they reach one.
 */
export const MAX_JSON_DEPTH = 64;

/**
 * What is wrong with the shape of `text`, in words: a member name an object repeats, or nesting
 * deeper than MAX_JSON_DEPTH; null for nothing. `text` must already be valid JSON (JSON.parse
 * said so): this only follows strings, objects and arrays. JSON.parse keeps the last of repeated
 * names without a word, and RFC 8785 (the hash) assumes I-JSON (RFC 7493), which forbids them;
 * no JSON parser among the dependencies reports them.
 */
export function jsonShapeProblem(text: string): string | null {
  // One set of names per open object; null for an open array.
  const open: (Set<string> | null)[] = [];
  let expectName = false;
  let i = 0;
  while (i < text.length) {
    const ch = text.charCodeAt(i);
    if (ch === 0x22) {
      const start = i++;
      let escaped = false;
      while (i < text.length) {
        const c = text.charCodeAt(i);
        if (c === 0x5c) {
          escaped = true;
          i += 2;
          continue;
        }
        if (c === 0x22) break;
        i++;
      }
      const names = open[open.length - 1];
      if (names && expectName) {
        // Names compare after unescaping: "a" and "\u0061" are the same name.
        const name = escaped ? (JSON.parse(text.slice(start, i + 1)) as string) : text.slice(start + 1, i);
        if (names.has(name))
          return `repeats the member name ${JSON.stringify(name)} in one object (I-JSON, RFC 7493, forbids it)`;
        names.add(name);
        expectName = false;
      }
      i++;
      continue;
    }
    if (ch === 0x7b || ch === 0x5b) {
      if (open.length === MAX_JSON_DEPTH)
        return `nests objects and arrays more than ${MAX_JSON_DEPTH} levels deep`;
      open.push(ch === 0x7b ? new Set() : null);
      expectName = ch === 0x7b;
    } else if (ch === 0x7d || ch === 0x5d) {
      open.pop();
      expectName = false;
    } else if (ch === 0x2c) expectName = open[open.length - 1] != null;
    i++;
  }
  return null;
}
