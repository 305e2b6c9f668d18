import { raw } from "hono/html";
import type { FC } from "hono/jsx";
import { Marked } from "marked";
import { getHeadingList, gfmHeadingId } from "marked-gfm-heading-id";
import { Layout } from "./layout.js";

/**
 * /codebook: docs/reference/codebook.md, the document researchers cite for the exports'
 * columns and the coding rules, served by the archive it describes, so a deployed archive
 * carries the version of the rules its exports follow. Headings keep GitHub's anchors
 * (`/codebook#grades`), so a link into the file and into the page name the same section.
 */
export function codebookHtml(markdown: string): string {
  const marked = new Marked(gfmHeadingId());
  const body = marked.parse(markdown, { async: false });
  // The sections, for a long document read in a browser: its second and third levels.
  const contents = getHeadingList()
    .filter((heading) => heading.level === 2 || heading.level === 3)
    .map((heading) => `<li class="toc-${heading.level}"><a href="#${heading.id}">${heading.text}</a></li>`)
    .join("");
  return `<nav aria-label="Sections" class="toc"><h2>Sections</h2><ul>${contents}</ul></nav>${body}`;
}

/** The page around the rendered codebook. Its HTML comes from the project's own file, never from users. */
export const CodebookPage: FC<{ html: string }> = ({ html }) => (
  <Layout
    title="Codebook · Incident ledger"
    description="The codebook of this archive's exports: every column of incidents.csv, ucdp-ged.csv and acled.csv, and the coding rules behind them."
  >
    <article class="codebook">{raw(html)}</article>
  </Layout>
);
