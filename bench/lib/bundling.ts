import { existsSync } from "node:fs";
import { join } from "node:path";
import { type BuildOptions, build, type Metafile } from "esbuild";

/** esbuild's options for a Lambda, from infra/bundling.ts when it exists (the stack's own), else the same by hand. */
export async function lambdaBuildOptions(root: string): Promise<BuildOptions> {
  const defaults = {
    format: "esm" as const,
    target: "node20",
    mainFields: ["module", "main"],
    banner:
      "import { createRequire as __ledgerCreateRequire } from 'node:module'; const require = __ledgerCreateRequire(import.meta.url);",
    minify: true,
    define: {} as Record<string, string>,
  };
  let chosen = defaults;
  const file = join(root, "infra/bundling.ts");
  if (existsSync(file)) {
    const { LAMBDA_BUNDLING: b } = (await import(file)) as {
      LAMBDA_BUNDLING: {
        format?: string;
        target?: string;
        mainFields?: string[];
        banner?: string;
        minify?: boolean;
        define?: Record<string, string>;
      };
    };
    chosen = {
      format: b.format === "cjs" ? ("cjs" as never) : "esm",
      target: b.target ?? defaults.target,
      mainFields: b.mainFields ?? defaults.mainFields,
      banner: b.banner ?? defaults.banner,
      minify: b.minify ?? defaults.minify,
      define: b.define ?? defaults.define,
    };
  }
  return {
    bundle: true,
    platform: "node",
    format: chosen.format,
    target: chosen.target,
    mainFields: chosen.mainFields,
    banner: { js: chosen.banner },
    minify: chosen.minify,
    define: chosen.define,
    metafile: true,
    logLevel: "silent",
  };
}

export interface Bundle {
  file: string;
  bytes: number;
  /** Output bytes by package (or "ours"), largest first. */
  composition: [string, number][];
}

export async function bundle(entry: string, outfile: string, options: BuildOptions): Promise<Bundle> {
  const result = await build({ ...options, entryPoints: [entry], outfile });
  const output = Object.values(result.metafile?.outputs ?? {})[0];
  if (!output) throw new Error(`esbuild wrote nothing for ${entry}`);
  return { file: outfile, bytes: output.bytes, composition: composition(output) };
}

function composition(output: Metafile["outputs"][string]): [string, number][] {
  const by = new Map<string, number>();
  for (const [path, input] of Object.entries(output.inputs)) {
    const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path)?.[1] ?? "ours (events/, functions/)";
    const group =
      pkg.startsWith("@aws-sdk/") || pkg.startsWith("@smithy/") ? "AWS SDK (@aws-sdk, @smithy)" : pkg;
    by.set(group, (by.get(group) ?? 0) + input.bytesInOutput);
  }
  return [...by].sort((a, b) => b[1] - a[1]);
}
