import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** The files under `dir` (at any depth) whose bytes hold `text`: what a person holding the disk could find. */
export function filesHolding(dir: string, text: string): string[] {
  const needle = Buffer.from(text);
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .filter((path) => readFileSync(path).includes(needle));
}
