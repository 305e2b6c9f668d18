import { describe, expect, it } from "vitest";
import { countryNames } from "../country-codes.js";
import { countryCode } from "./countries.js";

describe("countryCode: a dataset's country name as ISO 3166-1 alpha-2", () => {
  it("given the written-out list, then ISO 3166-1's 249 codes and XK, none of them withdrawn", () => {
    expect(countryNames().size).toBe(250);
    for (const code of ["FX", "HV", "DY", "YU", "ZR", "EU", "UN"])
      expect(countryNames().has(code), code).toBe(false);
  });

  it("given the names ICU gives every code, then each reads back as its own code", () => {
    for (const [code, name] of countryNames()) expect(countryCode(name), name).toBe(code);
  });

  it("given countries ICU also names under a withdrawn code, then the current code, never the withdrawn one", () => {
    expect(
      ["France", "Burkina Faso", "Benin", "Serbia", "Congo - Kinshasa", "Myanmar", "Russia", "Germany"].map(
        countryCode,
      ),
    ).toEqual(["FR", "BF", "BJ", "RS", "CD", "MM", "RU", "DE"]);
  });

  it("given ACLED's and UCDP GED's spellings ('and' for '&', 'Saint' for 'St.'), then their codes", () => {
    expect(
      [
        "Sao Tome and Principe",
        "Antigua and Barbuda",
        "Saint Vincent and the Grenadines",
        "Saint Kitts and Nevis",
        "Turks and Caicos Islands",
        "Virgin Islands, U.S.",
        "Kingdom of eSwatini (Swaziland)",
        "Kosovo",
        "Bonaire, Sint Eustatius and Saba",
      ].map(countryCode),
    ).toEqual(["ST", "AG", "VC", "KN", "TC", "VI", "SZ", "XK", "BQ"]);
  });

  it("given Gleditsch and Ward's names, as UCDP GED writes them, then their codes", () => {
    expect(
      [
        "United States of America",
        "Rumania",
        "Surinam",
        "Belarus (Byelorussia)",
        "Sri Lanka (Ceylon)",
        "Burkina Faso (Upper Volta)",
        "Yemen (North Yemen)",
      ].map(countryCode),
    ).toEqual(["US", "RO", "SR", "BY", "LK", "BF", "YE"]);
  });

  it("given a code no country holds, or a name not known, then null", () => {
    expect(["XX", "FX", "YU", "Atlantis", "Atlantis (Lemuria)"].map(countryCode)).toEqual([
      null,
      null,
      null,
      null,
      null,
    ]);
  });
});
