import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { combineBounds, describeFigure, figureBounds } from "./figures.js";
import type { Figure } from "./schemas.js";

const f = (figure: Figure) => figure;

describe("figureBounds: each form of a Figure commits the speaker to the contract's bounds", () => {
  it.each([
    ["exactly 50", f({ value: 50, qualifier: "exact" }), 50, 50],
    ["at least 50", f({ value: 50, qualifier: "at-least" }), 50, null],
    ["at most 50", f({ value: 50, qualifier: "at-most" }), 0, 50],
    ["about 4,000", f({ value: 4000, qualifier: "about" }), 4000, 4000],
    ["between 15 and 20", f({ min: 15, max: 20 }), 15, 20],
    ["dozens", f({ qualifier: "dozens" }), 24, 99],
    ["hundreds", f({ qualifier: "hundreds" }), 200, 999],
    ["exactly 0", f({ value: 0, qualifier: "exact" }), 0, 0],
  ])("given %s, then low and high are the contract's", (_, figure, low, high) => {
    expect(figureBounds(figure)).toMatchObject({ low, high });
  });

  it("given 'about N', then the bounds are marked approximate; an exact count or range is not", () => {
    expect(figureBounds({ value: 4000, qualifier: "about" }).approximate).toBe(true);
    expect(figureBounds({ value: 50, qualifier: "exact" }).approximate).toBe(false);
    expect(figureBounds({ value: 50, qualifier: "at-least" }).approximate).toBe(false);
    expect(figureBounds({ min: 15, max: 20 }).approximate).toBe(false);
  });

  it("given words as reported ('many dozens'), then the text changes nothing about the bounds", () => {
    expect(figureBounds({ qualifier: "dozens", text: "many dozens" })).toEqual(
      figureBounds({ qualifier: "dozens" }),
    );
  });
});

describe("combineBounds: low is the largest lower bound, high the largest upper bound or open", () => {
  it("given no figures, then there is no range", () => {
    expect(combineBounds([])).toEqual({ low: null, high: null });
  });

  it("given the contract's example 'exactly 12' and 'at least 15', then low 15, high open", () => {
    expect(
      combineBounds([
        { value: 12, qualifier: "exact" },
        { value: 15, qualifier: "at-least" },
      ]),
    ).toEqual({
      low: 15,
      high: null,
    });
  });

  it("given the contract's example 'exactly 12' and 'about 20', then low 20, high 20", () => {
    expect(
      combineBounds([
        { value: 12, qualifier: "exact" },
        { value: 20, qualifier: "about" },
      ]),
    ).toEqual({
      low: 20,
      high: 20,
    });
  });

  it("given Kramatorsk's 'at least 50' (authorities) and 'exactly 50' (governor), then 50 and open", () => {
    expect(
      combineBounds([
        { value: 50, qualifier: "at-least" },
        { value: 50, qualifier: "exact" },
      ]),
    ).toEqual({
      low: 50,
      high: null,
    });
  });

  it("given 'at most 50' and 'exactly 12', then low 12 (not 0), high 50", () => {
    expect(
      combineBounds([
        { value: 50, qualifier: "at-most" },
        { value: 12, qualifier: "exact" },
      ]),
    ).toEqual({
      low: 12,
      high: 50,
    });
  });

  it("given '15–20' and 'dozens', then 24 and 99", () => {
    expect(combineBounds([{ min: 15, max: 20 }, { qualifier: "dozens" }])).toEqual({ low: 24, high: 99 });
  });

  it("given one open-ended figure last, first or alone, then high is open", () => {
    const open: Figure = { value: 3, qualifier: "at-least" };
    expect(combineBounds([{ qualifier: "hundreds" }, open]).high).toBeNull();
    expect(combineBounds([open, { qualifier: "hundreds" }]).high).toBeNull();
    expect(combineBounds([open])).toEqual({ low: 3, high: null });
  });
});

const count = fc.integer({ min: 0, max: 100_000 });
const arbFigure: fc.Arbitrary<Figure> = fc.oneof(
  fc.record({ value: count, qualifier: fc.constantFrom("exact", "at-least", "at-most", "about" as const) }),
  fc.tuple(count, count).map(([a, b]) => ({ min: Math.min(a, b), max: Math.max(a, b) })),
  fc.record({ qualifier: fc.constantFrom("dozens", "hundreds" as const) }),
);

describe("combineBounds, for any valid figures", () => {
  it("never gives high below low", () => {
    fc.assert(
      fc.property(fc.array(arbFigure, { minLength: 1, maxLength: 8 }), (figures) => {
        const { low, high } = combineBounds(figures);
        expect(low).not.toBeNull();
        if (high !== null) expect(high).toBeGreaterThanOrEqual(low as number);
      }),
    );
  });

  it("gives low = the largest lower bound, and high = null exactly when one figure is open-ended", () => {
    fc.assert(
      fc.property(fc.array(arbFigure, { minLength: 1, maxLength: 8 }), (figures) => {
        const bounds = figures.map(figureBounds);
        const { low, high } = combineBounds(figures);
        expect(low).toBe(Math.max(...bounds.map((b) => b.low)));
        const open = bounds.some((b) => b.high === null);
        expect(high).toBe(open ? null : Math.max(...bounds.map((b) => b.high as number)));
      }),
    );
  });

  it("does not depend on the order of the sources", () => {
    fc.assert(
      fc.property(fc.array(arbFigure, { minLength: 1, maxLength: 8 }), (figures) => {
        expect(combineBounds([...figures].reverse())).toEqual(combineBounds(figures));
      }),
    );
  });
});

describe("describeFigure: the figure in words", () => {
  it.each([
    [f({ value: 50, qualifier: "exact" }), "50"],
    [f({ value: 50, qualifier: "at-least" }), "at least 50"],
    [f({ value: 50, qualifier: "at-most" }), "at most 50"],
    [f({ value: 4000, qualifier: "about" }), "about 4,000"],
    [f({ min: 15, max: 20 }), "15–20"],
    [f({ qualifier: "dozens", text: "many dozens" }), "dozens"],
    [f({ qualifier: "hundreds" }), "hundreds"],
  ])("given %j, then %s", (figure, words) => {
    expect(describeFigure(figure)).toBe(words);
  });
});
