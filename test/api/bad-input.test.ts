import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseAppendBody } from "../../events/validate.js";
import type { LocalServer } from "../../functions/local/server.js";
import { AP, call, casualties, opened, post, startArchive } from "../support/archive.js";

let archive: LocalServer;
const id = "fuzz-target";
beforeAll(async () => {
  archive = await startArchive();
  await post(archive.url, id, opened("fuzz-target-open"));
  await post(
    archive.url,
    id,
    casualties({ killed: { value: 50, qualifier: "at-least" } }, "A", "fuzz-target-toll"),
  );
});
afterAll(() => archive.close());

const valid = [
  opened("fuzz-valid-open"),
  casualties({ killed: { min: 15, max: 20 }, injured: { qualifier: "dozens" } }, "Governor"),
  {
    type: "StatementMade",
    source: AP,
    attributedTo: { name: "Mayor" },
    data: { quote: "No words.", stance: "condemns" },
  },
  { type: "DenialIssued", source: AP, attributedTo: { name: "Ministry" }, data: { claim: "responsibility" } },
  {
    type: "ClaimAssessed",
    source: AP,
    attributedTo: { name: "Experts" },
    data: { targetEventId: "fuzz-target-toll", verdict: "disputed" },
  },
  {
    type: "ReportRetracted",
    source: AP,
    attributedTo: { name: "AP" },
    data: { targetEventId: "fuzz-target-toll", reason: "typo" },
  },
];

type Json = unknown;
const paths = (value: Json, prefix: (string | number)[] = []): (string | number)[][] =>
  value !== null && typeof value === "object"
    ? Object.entries(value as object).flatMap(([k, v]) => {
        const key = Array.isArray(value) ? Number(k) : k;
        return [[...prefix, key], ...paths(v, [...prefix, key])];
      })
    : [];

function mutate(
  base: Json,
  path: (string | number)[],
  action: "drop" | "retype" | "extra",
  replacement: Json,
): Json {
  const copy = structuredClone(base) as Record<string | number, Json>;
  let parent: Record<string | number, Json> = copy;
  for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, Json>;
  const last = path[path.length - 1] as string | number;
  if (action === "drop") delete parent[last];
  else if (action === "retype") parent[last] = replacement;
  else if (parent[last] !== null && typeof parent[last] === "object" && !Array.isArray(parent[last])) {
    (parent[last] as Record<string, Json>).unexpectedField = replacement;
  } else parent[last] = replacement;
  return copy;
}

const mutated = fc
  .tuple(
    fc.constantFrom(...valid),
    fc.nat(),
    fc.constantFrom("drop", "retype", "extra") as fc.Arbitrary<"drop" | "retype" | "extra">,
    fc.oneof(
      fc.constant(null),
      fc.integer({ min: -5, max: -1 }),
      fc.double(),
      fc.string(),
      fc.array(fc.integer()),
      fc.constant({}),
    ),
  )
  .map(([base, n, action, replacement]) => {
    const all = paths(base);
    return mutate(base, all[n % all.length] as (string | number)[], action, replacement);
  });
const batchWithOneBad = fc.tuple(mutated, fc.nat(3)).map(([bad, at]) => {
  const events: Json[] = [
    casualties({ killed: { value: 1, qualifier: "exact" } }, "X"),
    casualties({ missing: { value: 2, qualifier: "exact" } }, "Y"),
  ];
  events.splice(at % 3, 0, bad);
  return { events };
});
const anyJson = fc.jsonValue();

describe("property: malformed input never gets a 5xx and never stores anything", () => {
  it("hundreds of generated bad bodies answer 4xx problem+json naming fields", async () => {
    const before = (await call(archive.url, "GET", `/incidents/${id}/events`)).body.items.length;
    let sent = 0;
    await fc.assert(
      fc.asyncProperty(fc.oneof(mutated, batchWithOneBad, anyJson), async (body) => {
        // Only bodies the contract calls invalid; a mutation can by chance stay valid.
        fc.pre(!parseAppendBody(body).ok);
        sent += 1;
        const answer = await post(archive.url, id, body);
        expect(answer.status).toBeGreaterThanOrEqual(400);
        expect(answer.status).toBeLessThan(500);
        expect(answer.headers.get("content-type")).toContain("application/problem+json");
        expect(answer.body.status).toBe(answer.status);
        if (answer.status === 422) expect(answer.body.errors.length).toBeGreaterThan(0);
      }),
      { numRuns: 300 },
    );
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 200 }), async (text) => {
        fc.pre(
          (() => {
            try {
              JSON.parse(text);
              return false;
            } catch {
              return true;
            }
          })(),
        );
        const answer = await post(archive.url, id, text);
        expect(answer.status).toBe(400);
        expect(answer.headers.get("content-type")).toContain("application/problem+json");
      }),
      { numRuns: 100 },
    );
    expect(sent).toBeGreaterThan(200);
    const after = (await call(archive.url, "GET", `/incidents/${id}/events`)).body.items.length;
    expect(after).toBe(before);
  });
});
