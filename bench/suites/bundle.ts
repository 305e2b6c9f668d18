import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { bundle, lambdaBuildOptions } from "../lib/bundling.js";
import { ROOT } from "../lib/paths.js";
import type { Row } from "../lib/results.js";
import { ratioGoal, row } from "../lib/row.js";
import { median } from "../lib/stats.js";
import type { Suite } from "../lib/suite.js";

const GROUP = "API Lambda bundle vs a minimal Hono + DynamoDB client bundle built the same way";

/**
 * functions/lambda/api.ts bundled as the stack bundles it, against bench/bundle/minimal-api.ts
 * (Hono, the DynamoDB client, one route): output size, and the time a fresh `node` takes to
 * import each (a Lambda cold start's module-loading part), alternating, median of several.
 */
export const lambdaBundle: Suite = {
  name: "Bundle",
  steps: () => 2,
  async run(ctx) {
    const root = ROOT;
    const dir = mkdtempSync(join(tmpdir(), "ledger-bench-bundle-"));
    try {
      const options = await lambdaBuildOptions(root);
      const api = await bundle(join(root, "functions/lambda/api.ts"), join(dir, "api/index.mjs"), options);
      const minimal = await bundle(
        join(root, "bench/bundle/minimal-api.ts"),
        join(dir, "minimal/index.mjs"),
        options,
      );
      ctx.progress.step("bundled the API Lambda and the minimal one");
      const times = { api: [] as number[], minimal: [] as number[] };
      for (let run = 0; run < ctx.sizes.importRuns; run++) {
        times.api.push(importTime(api.file));
        times.minimal.push(importTime(minimal.file));
      }
      ctx.progress.step("cold imports");
      const top = api.composition
        .slice(0, 4)
        .map(([name, bytes]) => `${name} ${Math.round(bytes / 1024)} KB`)
        .join(", ");
      const common = {
        group: GROUP,
        baselineName: "minimal Hono + DynamoDB client",
        goal: ratioGoal("<=", 1.3),
      };
      return [
        row({
          ...common,
          id: "bundle.size",
          title: "bundle size (minified ESM)",
          unit: "KB",
          subject: api.bytes / 1024,
          baseline: minimal.bytes / 1024,
          detail: `Largest parts of the API bundle: ${top}.`,
        }),
        row({
          ...common,
          id: "bundle.import",
          title: `cold import in a fresh node (median of ${ctx.sizes.importRuns})`,
          unit: "ms",
          subject: median(times.api),
          baseline: median(times.minimal),
        }),
      ] satisfies Row[];
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};

/** Milliseconds a fresh node spends importing the bundle (module loading and top-level code only). */
function importTime(file: string): number {
  const script = `const t = performance.now(); await import(${JSON.stringify(pathToFileURL(file).href)}); process.stdout.write(String(performance.now() - t));`;
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], {
    encoding: "utf8",
    env: {
      PATH: process.env.PATH,
      AWS_REGION: "eu-west-1",
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true",
    },
  });
  return Number(out);
}
