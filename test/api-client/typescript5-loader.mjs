import { register } from "node:module";
import { isMainThread } from "node:worker_threads";

/**
 * openapi-typescript 7 builds its output with TypeScript 5's `ts.factory`; this project's
 * TypeScript 7 has no JS API. Loaded with `node --import`, this hook hands openapi-typescript
 * the TypeScript 5 installed under the alias `typescript5`, and leaves everything else alone.
 */
export async function resolve(specifier, context, nextResolve) {
  if (specifier === "typescript" && context.parentURL?.includes("/node_modules/openapi-typescript/")) {
    return nextResolve("typescript5", context);
  }
  return nextResolve(specifier, context);
}

if (isMainThread) register(import.meta.url);
