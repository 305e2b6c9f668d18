import { describe, expect, it } from "vitest";
import { csvCell, csvRecord } from "./csv.js";

describe("csvCell", () => {
  it("given plain text, when written, then it is left as it is", () => {
    expect(csvCell("Kramatorsk railway station")).toBe("Kramatorsk railway station");
  });

  it("given commas, quotes and line breaks, when written, then the cell is quoted with quotes doubled", () => {
    expect(csvCell('He said "no", twice')).toBe('"He said ""no"", twice"');
    expect(csvCell("line one\nline two")).toBe('"line one\nline two"');
    expect(csvCell("a\r\nb")).toBe('"a\r\nb"');
  });

  it.each([
    ["=SUM(A1:A9)", "'=SUM(A1:A9)"],
    ["+1", "'+1"],
    ["-2+3", "'-2+3"],
    ["@SUM(A1)", "'@SUM(A1)"],
    ["\tcmd", "'\tcmd"],
  ])(
    "given text that a spreadsheet would run (%j), when written, then a quote mark comes first",
    (text, out) => {
      expect(csvCell(text)).toBe(out);
    },
  );

  it("given text that already starts with a quote, when written, then it is as sent: a release's bytes never change", () => {
    expect(csvCell("'=already quoted")).toBe("'=already quoted");
    expect(csvCell("'plain")).toBe("'plain");
  });

  it("given a formula with a comma, when written, then it is both guarded and quoted", () => {
    expect(csvCell("=1,2")).toBe('"\'=1,2"');
  });

  it("given a text cell that starts with CR, when written, then it is guarded and quoted", () => {
    expect(csvCell("\rx")).toBe('"\'\rx"');
  });

  it("given numbers, booleans and null, when written, then numbers stay numbers and null is empty", () => {
    expect(csvCell(-73.5)).toBe("-73.5");
    expect(csvCell(0)).toBe("0");
    expect(csvCell(true)).toBe("true");
    expect(csvCell(null)).toBe("");
    expect(() => csvCell(Number.NaN)).toThrow(RangeError);
  });
});

describe("numbers in plain decimal", () => {
  it.each<[number, string]>([
    [1e-7, "0.0000001"],
    [-1e-7, "-0.0000001"],
    [1.5e-7, "0.00000015"],
    [-1.2345678901234e-10, "-0.00000000012345678901234"],
    [5e-324, `0.${"0".repeat(323)}5`],
    [0, "0"],
    [-0, "0"],
    [48.123456789012, "48.123456789012"],
    [0.1, "0.1"],
    [180, "180"],
    [-180, "-180"],
    [1e21, "1000000000000000000000"],
    [1.5e22, "15000000000000000000000"],
  ])(
    "given %s, when written, then the cell is %s: no exponent, and it reads back as the same number",
    (n, out) => {
      expect(csvCell(n)).toBe(out);
      expect(Number(csvCell(n))).toBe(n === 0 ? 0 : n);
    },
  );
});

describe("csvRecord", () => {
  it("given cells, when written, then they are comma-separated and end in CRLF", () => {
    expect(csvRecord(["a", 1, null, "b,c"])).toBe('a,1,,"b,c"\r\n');
  });
});
