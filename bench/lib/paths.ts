import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository's root: the benchmark runs the product from there whatever the working directory. */
export const ROOT = fileURLToPath(new URL("../..", import.meta.url));

export const fromRoot = (...parts: string[]) => join(ROOT, ...parts);
