import { describe, expect, it } from "vitest";
import { MalformedRequestError } from "../errors.js";
import { parseBodyJson } from "./strict-json.js";

function refusal(text: string): MalformedRequestError {
  try {
    parseBodyJson(text);
  } catch (e) {
    return e as MalformedRequestError;
  }
  throw new Error(`${text} parsed`);
}

describe("parseBodyJson", () => {
  it("says why a body does not parse without repeating any of it: it may hold a name to be sealed", () => {
    for (const text of [
      "Zoya Petrenko, witness",
      '{"type":"VictimsRecorded","data":{"victims":[{"name":Zoya Petrenko}]}}',
      '{"name":"Zoya Petrenko"',
    ]) {
      const error = refusal(text);
      expect(error).toBeInstanceOf(MalformedRequestError);
      expect(error.message, text).toMatch(/^the body is not valid JSON: \S/);
      expect(error.message, text).not.toContain("Zoya");
      expect(error.message, text).not.toContain("Petrenko");
    }
    // The parser's own words stay: what it met, or where.
    expect(refusal("Zoya").message).toBe("the body is not valid JSON: Unexpected token 'Z'");
    expect(refusal('{"a":1,}').message).toContain("position 7");
  });
});
