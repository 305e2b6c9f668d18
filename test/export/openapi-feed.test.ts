import { describe, expect, it } from "vitest";
import { openApiDocument } from "../../functions/http/openapi.js";

// biome-ignore lint/suspicious/noExplicitAny: the document is plain JSON, read loosely here.
const doc = openApiDocument() as any;

describe("OpenAPI entries of the feed, exports and releases", () => {
  const operations: [string, string][] = [
    ["/feed", "get"],
    ["/export/events.ndjson", "get"],
    ["/export/incidents.csv", "get"],
    ["/releases", "get"],
    ["/releases", "post"],
    ["/releases/{name}", "get"],
  ];

  it.each(operations)(
    "%s %s has an operationId, tags, a summary, security and typed answers",
    (path, method) => {
      const op = doc.paths[path]?.[method];
      expect(op, `${method} ${path}`).toBeDefined();
      expect(op.operationId).toMatch(/^[a-z][A-Za-z]+$/);
      expect(op.tags).toEqual(["Feed and exports"]);
      expect(op.summary.length).toBeGreaterThan(10);
      expect(Array.isArray(op.security)).toBe(true);
      for (const [status, answer] of Object.entries(op.responses) as [string, { content?: object }][]) {
        expect(answer.content, `${method} ${path} ${status}`).toBeDefined();
        for (const media of Object.values(answer.content as Record<string, { schema?: { $ref?: string } }>)) {
          expect(media.schema).toBeDefined();
          const ref = media.schema?.$ref;
          if (ref) expect(doc.components.schemas[ref.replace("#/components/schemas/", "")]).toBeDefined();
        }
      }
    },
  );

  it("asks for the bearer token on POST /releases only", () => {
    expect(doc.paths["/releases"].post.security).toEqual([{ bearer: [] }]);
    expect(operations.filter(([p, m]) => doc.paths[p][m].security.length > 0)).toEqual([
      ["/releases", "post"],
    ]);
  });

  it("gives each operation its own id", () => {
    const ids = Object.values(doc.paths).flatMap((p) =>
      Object.values(p as Record<string, { operationId?: string }>).flatMap((o) =>
        o.operationId ? [o.operationId] : [],
      ),
    );
    expect(new Set(ids).size).toBe(ids.length);
  });
});
