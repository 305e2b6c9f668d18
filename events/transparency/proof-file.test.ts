import { describe, expect, it } from "vitest";
import { MalformedProofFileError } from "./errors.js";
import { hashLeaf } from "./merkle.js";
import { formatProofFile, parseProofFile } from "./proof-file.js";

const checkpoint =
  "example.com/fancylog\n109482\nsFodV/vSp5O8n9a8QpW6PRY97tfOSW5bsc2Xl/EQi08=\n\n— example.com/fancylog AAAAAAAA\n";
const inclusion = [hashLeaf(new Uint8Array([1])), hashLeaf(new Uint8Array([2]))];

describe("tlog-proof@v1 files", () => {
  it("given a proof with extra data, then it is laid out as the spec shows and parses back", () => {
    const text = formatProofFile({ extra: new Uint8Array([1, 2]), index: 73894, inclusion, checkpoint });
    expect(text.split("\n").slice(0, 3)).toEqual(["c2sp.org/tlog-proof@v1", "extra AQI=", "index 73894"]);
    expect(text.endsWith(`\n\n${checkpoint}`)).toBe(true);
    expect(parseProofFile(text)).toEqual({
      extra: new Uint8Array([1, 2]),
      index: 73894,
      inclusion,
      checkpoint,
    });
  });

  it("parses a proof without extra and with an empty inclusion (a tree of one)", () => {
    expect(parseProofFile(`c2sp.org/tlog-proof@v1\nindex 0\n\n${checkpoint}`)).toEqual({
      index: 0,
      inclusion: [],
      checkpoint,
    });
  });

  it("refuses another header, a leading zero, a short hash, a missing checkpoint", () => {
    for (const bad of [
      `c2sp.org/tlog-proof@v2\nindex 0\n\n${checkpoint}`,
      `c2sp.org/tlog-proof@v1\nindex 01\n\n${checkpoint}`,
      `c2sp.org/tlog-proof@v1\nindex 1\nAAAA\n\n${checkpoint}`,
      "c2sp.org/tlog-proof@v1\nindex 1\n",
      "c2sp.org/tlog-proof@v1\nindex 1\n\nnot a note",
    ]) {
      expect(() => parseProofFile(bad), bad).toThrow(MalformedProofFileError);
    }
  });
});
