import { describe, expect, it } from "vitest";
import { countryCode } from "./countries.js";
import { datasetEventId, slugify } from "./event-ids.js";
import { parseCount, parseDay, parseUnixTime } from "./rows.js";

describe("parseDay: the days the datasets write", () => {
  it.each([
    ["2022-04-08", "2022-04-08"],
    ["2022-04-08 00:00:00.000", "2022-04-08"],
    ["08 April 2022", "2022-04-08"],
    ["8-Apr-2022", "2022-04-08"],
    ["2022-02-31", null],
    ["0099-02-20", "0099-02-20"],
    ["2024-02-29", "2024-02-29"],
    ["1900-02-29", null],
    ["31 February 2022", null],
    ["yesterday", null],
  ])("given %s, then %s", (text, day) => {
    expect(parseDay(text)).toBe(day);
  });
});

describe("import ids", () => {
  it("given the same event with its members in another order, then the same id; another value, then another", () => {
    const a = datasetEventId("csv", "izium", {
      type: "StatementMade",
      data: { quote: "Q", stance: "neutral" },
    });
    expect(
      datasetEventId("csv", "izium", { data: { stance: "neutral", quote: "Q" }, type: "StatementMade" }),
    ).toBe(a);
    expect(
      datasetEventId("csv", "izium", { type: "StatementMade", data: { quote: "Q", stance: "condemns" } }),
    ).not.toBe(a);
    expect(
      datasetEventId("csv", "kharkiv", { type: "StatementMade", data: { quote: "Q", stance: "neutral" } }),
    ).not.toBe(a);
    expect(a).toMatch(/^im-[A-Za-z0-9_-]{43}$/);
  });

  it("given free text, then a slug of the incident-id alphabet, or null when nothing is left", () => {
    expect(slugify("UKR12345", "acled-")).toBe("acled-ukr12345");
    expect(slugify("Київ")).toBeNull();
    expect(slugify("Café  Zürich!")).toBe("cafe-zurich");
  });
});

describe("countryCode and parseCount", () => {
  it("given the datasets' country names, then ISO codes; an unknown name, then null", () => {
    expect(countryCode("Ukraine")).toBe("UA");
    expect(countryCode("Russia (Soviet Union)")).toBe("RU");
    expect(countryCode("DR Congo (Zaire)")).toBe("CD");
    expect(countryCode("Atlantis")).toBeNull();
    expect(countryCode("constructor")).toBeNull();
  });

  it("given counts, then whole numbers from 0 to the most a figure holds only", () => {
    expect(parseCount("57")).toBe(57);
    expect(parseCount("100000000")).toBe(100_000_000);
    expect(parseCount("-1")).toBeNull();
    expect(parseCount("2.5")).toBeNull();
    expect(parseCount("")).toBeNull();
    expect(parseCount("99999999999999999999")).toBeNull();
  });
});

describe("parseUnixTime: ACLED's timestamp", () => {
  it.each([
    ["1650000000", "2022-04-15T05:20:00Z"],
    [" 0 ", "1970-01-01T00:00:00Z"],
    ["", ""],
    ["1650000000.5", null],
    ["-1", null],
    ["2022-04-15", null],
    ["123456789012", null],
  ])("given %j, then %j", (text, instant) => {
    expect(parseUnixTime(text)).toBe(instant);
  });
});
