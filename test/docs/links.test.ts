import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));

/** The pages a reader walks: the README, every page under docs/, the benchmark's README. */
function pages(): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? walk(path) : path.endsWith(".md") ? [path] : [];
    });
  return [join(root, "README.md"), ...walk(join(root, "docs")), join(root, "bench/README.md")];
}

/** The text outside fenced code blocks and inline code, where links and headings live. */
function prose(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "").replace(/`[^`\n]*`/g, "");
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function slugs(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  const withoutFences = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "");
  for (const match of withoutFences.matchAll(/^#{1,6}[ \t]+(.+?)[ \t#]*$/gm)) {
    const text = (match[1] as string).replace(/\[([^\]]*)\]\([^)]*\)/g, "$1");
    const base = text
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
      .replace(/ /g, "-");
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** Every `[text](target)` and `![alt](target)` whose target is not another site. */
function relativeLinks(markdown: string): string[] {
  return [...prose(markdown).matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)]
    .map((m) => m[1] as string)
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

/** Paths in code spans that name a file of this repository (`functions/http/app.ts`). */
function namedFiles(markdown: string): string[] {
  const withoutFences = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "");
  return [
    ...withoutFences.matchAll(
      /`((?:events|functions|infra|scripts|test|bench|docs|sample|types)\/[\w./-]+)`/g,
    ),
  ]
    .map((m) => m[1] as string)
    .filter((path) => /\.(ts|tsx|mjs|md|json|ndjson|png)$/.test(path) || path.endsWith("/"));
}

const label = (file: string) => relative(root, file);

describe("the documentation's links", () => {
  const files = pages();

  it("reads the README, every page under docs/ and bench/README.md", () => {
    expect(files.map(label)).toEqual(
      expect.arrayContaining(["README.md", "bench/README.md", "docs/tutorial.md"]),
    );
  });

  it("every relative link names a file of the repository, and every #anchor a heading in it", () => {
    const broken: string[] = [];
    for (const file of files) {
      for (const target of relativeLinks(readFileSync(file, "utf8"))) {
        const [path = "", anchor] = target.split("#", 2);
        const resolved = path === "" ? file : resolve(dirname(file), decodeURIComponent(path));
        if (!`${resolved}${sep}`.startsWith(root) && resolved !== root.slice(0, -1)) {
          broken.push(`${label(file)}: ${target} leaves the repository`);
          continue;
        }
        if (!existsSync(resolved)) {
          broken.push(`${label(file)}: ${target} — no such file`);
          continue;
        }
        if (anchor && !(resolved.endsWith(".md") && slugs(readFileSync(resolved, "utf8")).has(anchor))) {
          broken.push(`${label(file)}: ${target} — no heading #${anchor} in ${label(resolved)}`);
        }
      }
    }
    expect(broken).toEqual([]);
  });

  it("every file path the pages name in code exists", () => {
    const missing = files.flatMap((file) =>
      namedFiles(readFileSync(file, "utf8"))
        .filter((path) => !existsSync(join(root, path)) && !existsSync(join(dirname(file), path)))
        .map((path) => `${label(file)}: \`${path}\``),
    );
    expect(missing).toEqual([]);
  });

  it("every page under docs/ can be reached from the README", () => {
    const reached = new Set<string>();
    const visit = (file: string) => {
      if (reached.has(file) || !file.endsWith(".md") || !existsSync(file)) return;
      reached.add(file);
      for (const target of relativeLinks(readFileSync(file, "utf8"))) {
        const path = target.split("#", 1)[0] as string;
        if (path !== "") visit(resolve(dirname(file), decodeURIComponent(path)));
      }
    };
    visit(join(root, "README.md"));
    expect(files.filter((f) => !reached.has(f)).map(label)).toEqual([]);
  });

  it("anchors follow GitHub's slugs", () => {
    expect([...slugs("# CDK context (`npx cdk deploy -c name=value`)\n## A — b\n## A — b\n")]).toEqual([
      "cdk-context-npx-cdk-deploy--c-namevalue",
      "a--b",
      "a--b-1",
    ]);
  });
});
