import { describe, expect, it } from "vitest";
import { MalformedLeafError } from "./errors.js";
import { leafText, parseLeaf } from "./leaf.js";

const fields = {
  incidentId: "kramatorsk-station-2022-04-08",
  version: 2,
  eventId: "e-1",
  hash: "ab".repeat(32),
};

describe("leaf text", () => {
  it("is the canonical JSON of exactly the four fields, whatever else the event holds", () => {
    const text = new TextDecoder().decode(leafText({ ...fields, type: "report" } as typeof fields));
    expect(text).toBe(
      `{"eventId":"e-1","hash":"${"ab".repeat(32)}","incidentId":"kramatorsk-station-2022-04-08","version":2}`,
    );
  });

  it("reads back what it wrote", () => {
    expect(parseLeaf(leafText(fields))).toEqual(fields);
  });

  it("refuses bytes that are not the canonical form", () => {
    const spaced = new TextEncoder().encode(JSON.stringify(fields, null, 1));
    expect(() => parseLeaf(spaced)).toThrow(MalformedLeafError);
    const extra = new TextEncoder().encode(JSON.stringify({ ...fields, more: 1 }));
    expect(() => parseLeaf(extra)).toThrow(MalformedLeafError);
    expect(() => parseLeaf(new TextEncoder().encode("[]"))).toThrow(MalformedLeafError);
  });
});
