import { describe, expect, it } from "vitest";
import { formatCheckpoint, parseCheckpoint } from "./checkpoint.js";
import { MalformedCheckpointError } from "./errors.js";

// The body of tlog-checkpoint's own example.
const example = "example.com/behind-the-sofa\n20852163\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n";

describe("checkpoints", () => {
  it("given the spec's example, then it parses and formats back to the same bytes", () => {
    const cp = parseCheckpoint(example);
    expect(cp.origin).toBe("example.com/behind-the-sofa");
    expect(cp.size).toBe(20852163);
    expect(cp.extensions).toEqual([]);
    expect(formatCheckpoint(cp)).toBe(example);
  });

  it("keeps extension lines", () => {
    const body = `${example}ext one\n`;
    expect(parseCheckpoint(body).extensions).toEqual(["ext one"]);
    expect(formatCheckpoint(parseCheckpoint(body))).toBe(body);
  });

  it("refuses leading zeros, short roots, missing lines and empty extension lines", () => {
    for (const bad of [
      example.replace("20852163", "020852163"),
      example.replace("CsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=", "AAAA"),
      "example.com/x\n1\n",
      `${example}\n`,
      example.slice(0, -1),
      example.replace("20852163", "-1"),
    ]) {
      expect(() => parseCheckpoint(bad), JSON.stringify(bad)).toThrow(MalformedCheckpointError);
    }
  });
});
