import { describe, expect, it } from "vitest";
import { openApiDocument } from "../../functions/http/openapi.js";

// biome-ignore lint/suspicious/noExplicitAny: the document is plain JSON, read loosely here.
const doc = openApiDocument() as any;

describe("OpenAPI entries of the transparency log", () => {
  const operations = [
    "/log/checkpoint",
    "/log/vkey",
    "/log/tile/{L}/{N}",
    "/log/tile/entries/{N}",
    "/incidents/{incidentId}/events/{eventId}/proof",
    "/log/proof/{index}",
    "/log/consistency",
  ];

  it.each(operations)("GET %s is public, with an operationId, tags, a summary and typed answers", (path) => {
    const op = doc.paths[path]?.get;
    expect(op, path).toBeDefined();
    expect(op.operationId).toMatch(/^[a-z][A-Za-z]+$/);
    expect(op.tags).toEqual(["Transparency log"]);
    expect(op.summary.length).toBeGreaterThan(10);
    expect(op.security).toEqual([]);
    expect(Object.keys(op.responses)).toContain("400");
    for (const [status, answer] of Object.entries(op.responses) as [string, { content?: object }][]) {
      expect(answer.content, `${path} ${status}`).toBeDefined();
      for (const media of Object.values(answer.content as Record<string, { schema?: { $ref?: string } }>)) {
        const ref = media.schema?.$ref ?? "";
        expect(ref, `${path} ${status}`).toMatch(/^#\/components\/schemas\//);
        expect(doc.components.schemas[ref.replace("#/components/schemas/", "")], ref).toBeDefined();
      }
    }
  });

  it("documents 202 for an event not yet in the log, and 404 for an unknown one", () => {
    const responses = doc.paths["/incidents/{incidentId}/events/{eventId}/proof"].get.responses;
    expect(Object.keys(responses).sort()).toEqual(["200", "202", "400", "404"]);
  });
});
