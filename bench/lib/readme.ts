import { readFileSync, writeFileSync } from "node:fs";
import { fromRoot } from "./paths.js";

export const README = fromRoot("bench/README.md");

/**
 * Puts `markdown` between the `<!-- generated:NAME -->` and `<!-- end:NAME -->` markers of
 * bench/README.md: the tables there are what the last full run printed, never typed by hand.
 */
export function writeReadmeBlock(name: string, markdown: string, file = README): void {
  const text = readFileSync(file, "utf8");
  const start = `<!-- generated:${name} -->`;
  const end = `<!-- end:${name} -->`;
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  if (from < 0 || to < from) throw new Error(`${file} has no ${start} … ${end} block`);
  writeFileSync(file, `${text.slice(0, from + start.length)}\n${markdown.trim()}\n${text.slice(to)}`);
}
