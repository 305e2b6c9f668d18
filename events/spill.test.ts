import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { emptySpilled, filterAdd, filterMayHold, PIECE_CHARS, sealOldest } from "./spill.js";

describe("the filter of sealed retracted ids", () => {
  it("given ids added, then it may hold every one of them (no false negative)", () => {
    fc.assert(
      fc.property(fc.array(fc.string({ minLength: 1, maxLength: 64 }), { maxLength: 300 }), (ids) => {
        const spilled = emptySpilled();
        filterAdd(spilled, ids);
        for (const id of ids) expect(filterMayHold(spilled, id)).toBe(true);
      }),
    );
  });

  it("given 2,000 ids added, then it rules out nearly every other id", () => {
    const spilled = emptySpilled();
    filterAdd(
      spilled,
      Array.from({ length: 2_000 }, (_, i) => `ev_${i}`),
    );
    const others = Array.from({ length: 2_000 }, (_, i) => `other_${i}`);
    expect(others.filter((id) => filterMayHold(spilled, id)).length).toBeLessThan(50);
  });
});

describe("sealing a list's inline tail", () => {
  it("given a tail within budget, then it seals nothing", () => {
    const tail = ["a", "b"];
    expect(sealOldest(tail)).toBeNull();
    expect(tail).toEqual(["a", "b"]);
  });

  it("given a tail over budget, then it seals the oldest rows, at least a piece's worth", () => {
    const tail = Array.from({ length: 1_000 }, (_, i) => `row-${String(i).padStart(30, "0")}`);
    const sealed = sealOldest(tail) ?? [];
    expect(sealed[0]).toBe("row-000000000000000000000000000000");
    expect(JSON.stringify(sealed).length).toBeGreaterThanOrEqual(PIECE_CHARS);
    expect(JSON.stringify(sealed).length).toBeLessThan(PIECE_CHARS + 100);
    expect(sealed.length + tail.length).toBe(1_000);
  });

  it("given rows appended one by one, then it seals exactly when the tail's JSON passes the budget, as often as it does", () => {
    const tail: { eventId: string; claim: string }[] = [];
    let seals = 0;
    for (let i = 0; i < 400; i++) {
      tail.push({ eventId: `ev_${i}`, claim: "x".repeat(37 + ((i * 53) % 211)) });
      const over = JSON.stringify(tail).length > 2 * PIECE_CHARS;
      const before = JSON.stringify(tail);
      const sealed = sealOldest(tail);
      expect(sealed !== null, `row ${i}`).toBe(over);
      if (!sealed) continue;
      seals += 1;
      expect(JSON.stringify([...sealed, ...tail])).toBe(before);
      expect(JSON.stringify(sealed).length).toBeGreaterThanOrEqual(PIECE_CHARS);
    }
    expect(seals).toBeGreaterThan(3);
  });
});
