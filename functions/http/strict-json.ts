import { MalformedRequestError } from "../errors.js";

/**
 * The first member name an object of `text` repeats, or null. `text` must already be valid
 * JSON (JSON.parse said so): this only follows strings, objects and arrays. JSON.parse keeps the
 * last of repeated names without a word, and RFC 8785 (the hash) assumes I-JSON (RFC 7493),
 * which forbids them; no JSON parser among the dependencies reports them.
 */
export function repeatedMemberName(text: string): string | null {
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
        if (names.has(name)) return name;
        names.add(name);
        expectName = false;
      }
      i++;
      continue;
    }
    if (ch === 0x7b) {
      open.push(new Set());
      expectName = true;
    } else if (ch === 0x5b) open.push(null);
    else if (ch === 0x7d || ch === 0x5d) {
      open.pop();
      expectName = false;
    } else if (ch === 0x2c) expectName = open[open.length - 1] != null;
    i++;
  }
  return null;
}

/** A request body as JSON: 400 naming why if it does not parse, or if an object repeats a member name. */
export function parseBodyJson(text: string): unknown {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    throw new MalformedRequestError(`the body is not valid JSON: ${(error as Error).message}`, [
      { path: "(body)", message: "is not valid JSON" },
    ]);
  }
  const repeated = repeatedMemberName(text);
  if (repeated !== null) {
    const message = `repeats the member name ${JSON.stringify(repeated)} in one object (I-JSON, RFC 7493, forbids it)`;
    throw new MalformedRequestError(`the body ${message}; nothing was stored`, [{ path: "(body)", message }]);
  }
  return body;
}
