import { describe, expect, it } from "vitest";
import { acledValue, bestValue, estimate, lowerMedian } from "./estimates.js";
import type { Figure } from "./schemas.js";
import { about, assessment, atLeast, casualties, exact, given, opened, retraction } from "./test-kit.js";

// docs/reference/codebook.md "Best estimates": the per-figure rules, then how sources combine.
describe("per-figure rules", () => {
  it.each<[string, Figure, number, number]>([
    ["exact", exact(50), 50, 50],
    ["about", about(4000), 4000, 4000],
    ["at-least", atLeast(50), 50, 50],
    ["at-most", { value: 30, qualifier: "at-most" }, 0, 0],
    ["a range", { min: 15, max: 20 }, 15, 15],
    ["dozens", { qualifier: "dozens" }, 24, 12],
    ["hundreds", { qualifier: "hundreds" }, 200, 100],
  ])("given a figure %s, then its best and ACLED values are the codebook's", (_form, figure, best, acled) => {
    expect(bestValue(figure)).toBe(best);
    expect(acledValue(figure)).toBe(acled);
  });

  it("given no figure, then no estimate has a value", () => {
    expect(estimate([])).toEqual({ best: null, acled: null, lowest: null });
  });

  it("given an even number of values, then best is the lower of the two middle ones", () => {
    expect(lowerMedian([10, 40, 20, 30])).toBe(20);
    expect(lowerMedian([7])).toBe(7);
  });

  it("given ranges that do not overlap, then best is the lower median of their minimums, acled and lowest the smallest", () => {
    expect(
      estimate([
        { min: 10, max: 12 },
        { min: 40, max: 50 },
        { min: 100, max: 120 },
      ]),
    ).toEqual({
      best: 40,
      acled: 10,
      lowest: 10,
    });
  });

  it("given dozens and an exact figure, then ACLED's reading of dozens (12) is the most conservative", () => {
    expect(estimate([{ qualifier: "dozens" }, exact(20)])).toEqual({ best: 20, acled: 12, lowest: 20 });
  });

  it("given sources that disagree, then lowest is the smallest of their best values, not ACLED's", () => {
    // "Combining sources (lowest)": hundreds is 200 here, as for best (ACLED reads it as 100).
    expect(estimate([{ qualifier: "hundreds" }, exact(250), { min: 300, max: 400 }])).toEqual({
      best: 250,
      acled: 100,
      lowest: 200,
    });
  });

  it.each<[string, Figure[]]>([
    ["one figure", [exact(7)]],
    ["at least 50 and exactly 61", [atLeast(50), exact(61)]],
    ["two middle values", [exact(10), exact(40), exact(20), exact(30)]],
    [
      "at most, dozens and a range",
      [{ value: 30, qualifier: "at-most" }, { qualifier: "dozens" }, { min: 5, max: 9 }],
    ],
    ["hundreds and about", [{ qualifier: "hundreds" }, about(150), exact(999)]],
  ])("given %s, then lowest is never above best", (_mix, figures) => {
    const { best, lowest } = estimate(figures);
    expect(lowest).not.toBeNull();
    expect(lowest).toBeLessThanOrEqual(best as number);
    expect(lowest).toBe(Math.min(...figures.map(bestValue)));
  });
});

describe("best, acled and lowest in the summary", () => {
  it("given a single open-ended source, then best and acled are its stated value while high stays open", () => {
    given(opened(), casualties("c1", "Governor", { killed: atLeast(50) }))
      .when()
      .then((s) => {
        expect(s.casualties.killed).toMatchObject({ low: 50, high: null, best: 50, acled: 50 });
      });
  });

  it("given each source's latest report, then an earlier report of the same source does not count", () => {
    given(
      opened(),
      casualties("c1", "Governor", { killed: exact(10) }),
      casualties("c2", "Police", { killed: exact(30) }),
    )
      .when(casualties("c3", "Governor", { killed: exact(20) }))
      .then((s) => expect(s.casualties.killed).toMatchObject({ best: 20, acled: 20 }));
  });

  it("given every source retracted, then best, acled and lowest are null", () => {
    given(
      opened(),
      casualties("c1", "Governor", { killed: exact(10) }),
      casualties("c2", "Police", { killed: exact(30) }),
    )
      .when(retraction("r1", "c1"), retraction("r2", "c2"))
      .then((s) => expect(s.casualties.killed).toMatchObject({ best: null, acled: null, lowest: null }));
  });

  it("given a false verdict on the only source, then nothing is eligible, though low and high still show the report", () => {
    given(opened(), casualties("c1", "Governor", { killed: exact(10) }))
      .when(assessment("a1", "c1", "false"))
      .then((s) =>
        expect(s.casualties.killed).toMatchObject({ low: 10, high: 10, best: null, acled: null, reports: 1 }),
      );
  });

  it("given a false verdict, when a later assessment supports the report, then it counts again", () => {
    given(opened(), casualties("c1", "Governor", { killed: exact(10) }), assessment("a1", "c1", "false"))
      .when(assessment("a2", "c1", "supported"))
      .then((s) => expect(s.casualties.killed).toMatchObject({ best: 10, acled: 10 }));
  });

  it("given a false verdict, when it is retracted, then the report counts again", () => {
    given(opened(), casualties("c1", "Governor", { killed: exact(10) }), assessment("a1", "c1", "false"))
      .when(retraction("r1", "a1"))
      .then((s) => expect(s.casualties.killed).toMatchObject({ best: 10, acled: 10 }));
  });

  it("given a disputed verdict, then the report still counts (only false excludes)", () => {
    given(opened(), casualties("c1", "Governor", { killed: exact(10) }))
      .when(assessment("a1", "c1", "disputed"))
      .then((s) => expect(s.casualties.killed).toMatchObject({ best: 10 }));
  });

  it("given a false verdict on one of two sources, then the other alone makes the estimates", () => {
    given(
      opened(),
      casualties("c1", "Governor", { killed: exact(10) }),
      casualties("c2", "Police", { killed: { qualifier: "dozens" } }),
    )
      .when(assessment("a1", "c1", "false"))
      .then((s) => expect(s.casualties.killed).toMatchObject({ best: 24, acled: 12 }));
  });

  it("given a source's latest report retracted, when its earlier one is read back, then its verdicts come back with it", () => {
    given(
      opened(),
      casualties("c1", "Governor", { killed: exact(10) }),
      assessment("a1", "c1", "false"),
      casualties("c2", "Governor", { killed: exact(11) }),
      casualties("c3", "Governor", { killed: exact(12) }),
      casualties("c4", "Governor", { killed: exact(13) }),
    )
      .when(retraction("r4", "c4"), retraction("r3", "c3"), retraction("r2", "c2"))
      .then((s) => expect(s.casualties.killed).toMatchObject({ low: 10, best: null }));
  });
});

describe("lowest beside the range's low", () => {
  it("given at least 50 and exactly 61, then low is 61 (the largest lower bound) but lowest is 50, at best", () => {
    given(opened(), casualties("c1", "Governor", { killed: atLeast(50) }))
      .when(casualties("c2", "Police", { killed: exact(61) }))
      .then((s) => expect(s.casualties.killed).toMatchObject({ low: 61, high: null, best: 50, lowest: 50 }));
  });

  it("given a false verdict on the smallest source, then lowest leaves it out as best does, while low keeps it", () => {
    given(
      opened(),
      casualties("c1", "Governor", { killed: exact(10) }),
      casualties("c2", "Police", { killed: exact(30) }),
      casualties("c3", "Mayor", { killed: exact(40) }),
      casualties("c4", "Medics", { killed: exact(50) }),
    )
      .when(assessment("a1", "c1", "false"))
      .then((s) => expect(s.casualties.killed).toMatchObject({ low: 50, high: 50, best: 40, lowest: 30 }));
  });
});
