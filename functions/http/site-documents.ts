import { readFileSync } from "node:fs";
import { openApiDocument } from "./openapi.js";

/** The documents the archive serves about itself: the API (/openapi.json, /docs) and the codebook (/codebook). */
export interface SiteDocuments {
  openApi: Record<string, unknown>;
  /** docs/reference/codebook.md, as written: the page renders it. */
  codebook: string;
}

const CODEBOOK = new URL("../../docs/reference/codebook.md", import.meta.url);

/** The codebook from the working tree: the local server and the bundler read it here. */
export function codebookMarkdown(): string {
  return readFileSync(CODEBOOK, "utf8");
}

/** Both documents, built or read once at start by the local server (the Lambdas get them inlined). */
export function siteDocuments(): SiteDocuments {
  return { openApi: openApiDocument(), codebook: codebookMarkdown() };
}
