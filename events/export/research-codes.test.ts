import { describe, expect, it } from "vitest";
import type { Summary } from "../summarize.js";
import { publishers } from "./research-codes.js";

const withPublishers = (...names: string[]) =>
  ({
    casualties: {
      killed: { bySource: names.map((publisher) => ({ publisher })) },
      injured: { bySource: [{ publisher: "AP" }] },
    },
  }) as unknown as Summary;

describe("publishers: the sources a research row counts", () => {
  it("given one publisher written two ways, then it is one source, as the summary's sources are compared", () => {
    expect(publishers(withPublishers("Reuters", " Reuters ", "AP"))).toEqual(["AP", "Reuters"]);
    expect(publishers(withPublishers("Kyiv  Independent", "Kyiv Independent"))).toEqual([
      "AP",
      "Kyiv Independent",
    ]);
  });

  it("given a name in decomposed Unicode, then it is the same publisher as its composed form", () => {
    expect(publishers(withPublishers("Jose\u0301 News", "Jos\u00e9 News"))).toEqual(["AP", "Jos\u00e9 News"]);
  });
});
