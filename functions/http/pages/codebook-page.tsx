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
  // The contents, for a long document read in a browser: its sections and theirs, nested.
  let contents = "";
  let open = false;
  for (const heading of getHeadingList()) {
    const link = `<a href="#${heading.id}">${heading.text}</a>`;
    if (heading.level === 2) {
      contents += `${open ? "</ul></li>" : ""}<li>${link}<ul>`;
      open = true;
    } else if (heading.level === 3 && open) contents += `<li>${link}</li>`;
  }
  if (open) contents += "</ul></li>";
  const toc = `<nav aria-label="Contents" class="toc"><h2>Contents</h2><ul>${contents}</ul></nav>`;
  // After the title, before the text: where a reader of a long page looks for its contents.
  const title = body.indexOf("</h1>");
  return title < 0 ? toc + body : body.slice(0, title + 5) + toc + body.slice(title + 5);
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
