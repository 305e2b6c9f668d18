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

describe("csvRecord", () => {
  it("given cells, when written, then they are comma-separated and end in CRLF", () => {
    expect(csvRecord(["a", 1, null, "b,c"])).toBe('a,1,,"b,c"\r\n');
  });
});
