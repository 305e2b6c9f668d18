import { describe, expect, it } from "vitest";
import { isCalendarDay } from "./calendar.js";

describe("isCalendarDay", () => {
  it("given days of the years 0–99, then they are days (Date.UTC would read them as 19xx)", () => {
    expect(isCalendarDay(99, 2, 20)).toBe(true);
    expect(isCalendarDay(0, 2, 29)).toBe(true);
    expect(isCalendarDay(4, 2, 29)).toBe(true);
  });

  it("given the leap-year rules, then February has 29 days only in a leap year", () => {
    expect([2024, 2000, 1900, 2023].map((y) => isCalendarDay(y, 2, 29))).toEqual([true, true, false, false]);
  });

  it("given a month or day out of range, or not whole, then not a day", () => {
    expect(isCalendarDay(2022, 13, 1)).toBe(false);
    expect(isCalendarDay(2022, 4, 31)).toBe(false);
    expect(isCalendarDay(2022, 4, 0)).toBe(false);
    expect(isCalendarDay(2022, 1.5, 1)).toBe(false);
  });
});
