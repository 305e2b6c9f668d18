import { describe, expect, it } from "vitest";
import type { Summary } from "../summarize.js";
import {
  ACLED_GEO_PRECISION,
  ACLED_GEO_PRECISION_READ,
  ACLED_TIME_PRECISION,
  ACLED_TIME_PRECISION_READ,
  code,
  publishers,
  UCDP_DATE_PREC,
  UCDP_DATE_PREC_READ,
  UCDP_WHERE_PREC,
  UCDP_WHERE_PREC_READ,
  valueOfCode,
} from "./research-codes.js";

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

  it("given a category whose figures do not count (no best: its only report assessed false), then its publishers are not sources", () => {
    const s = {
      casualties: {
        killed: { best: null, bySource: [{ publisher: "Reuters" }] },
        injured: { best: 7, bySource: [{ publisher: "AP" }, { publisher: "Reuters " }] },
      },
    } as unknown as Summary;
    expect(publishers(s)).toEqual(["AP", "Reuters"]);
    expect(publishers({ casualties: { killed: s.casualties.killed } } as unknown as Summary)).toEqual([]);
  });

  it("given a name in decomposed Unicode, then it is the same publisher as its composed form", () => {
    expect(publishers(withPublishers("Jose\u0301 News", "Jos\u00e9 News"))).toEqual(["AP", "Jos\u00e9 News"]);
  });
});

describe("the precision codes read back (import)", () => {
  it.each([
    ["UCDP date_prec", UCDP_DATE_PREC, UCDP_DATE_PREC_READ],
    ["UCDP where_prec", UCDP_WHERE_PREC, UCDP_WHERE_PREC_READ],
    ["ACLED time_precision", ACLED_TIME_PRECISION, ACLED_TIME_PRECISION_READ],
    ["ACLED geo_precision", ACLED_GEO_PRECISION, ACLED_GEO_PRECISION_READ],
  ])("given every code of %s, when read back and written again, then the same code", (_name, write, read) => {
    const codes = [...new Set(Object.values(write))].sort();
    expect(Object.keys(read).sort()).toEqual(codes.map(String));
    for (const n of codes) expect(code(write, valueOfCode(read, String(n)))).toBe(n);
  });

  it("given a code several of ours share, then it reads as the one the codebook names", () => {
    expect(valueOfCode(ACLED_TIME_PRECISION_READ, "2")).toBe("week");
    expect(valueOfCode(ACLED_GEO_PRECISION_READ, "3")).toBe("adm1");
  });

  it("given an empty cell, then no value; a code the table has not, then null; 2.0 is 2", () => {
    expect(valueOfCode(UCDP_WHERE_PREC_READ, " ")).toBeUndefined();
    expect(valueOfCode(UCDP_WHERE_PREC_READ, "8")).toBeNull();
    expect(valueOfCode(UCDP_WHERE_PREC_READ, "constructor")).toBeNull();
    expect(valueOfCode(UCDP_WHERE_PREC_READ, "2.0")).toBe("near");
  });
});
