import { generateKeyPairSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import { ed25519RawPublicKey } from "./ed25519.js";
import { MalformedPolicyError } from "./errors.js";
import { COSIGNATURE_V1, verifierKey } from "./note.js";
import { parsePolicy, quorumMet } from "./policy.js";

const raw = () => ed25519RawPublicKey(generateKeyPairSync("ed25519").privateKey);
const w = (name: string) => verifierKey(name, raw(), COSIGNATURE_V1);
const logVkey = verifierKey("log.example/a", raw());

describe("tlog-policy", () => {
  const text = [
    "# the spec's two-level example",
    `log ${logVkey} https://log.example/a`,
    `witness X1 ${w("x1.example")}`,
    `witness X2 ${w("x2.example")}`,
    `witness X3 ${w("x3.example")}`,
    "group X-witnesses 2 X1 X2 X3",
    `  witness Y1\t${w("y1.example")}  `,
    `witness Y2 ${w("y2.example")}`,
    "group Y-witnesses any Y1 Y2",
    "group X-and-Y all X-witnesses Y-witnesses",
    "quorum X-and-Y",
    "",
  ].join("\n");

  it("given the spec's example shape, then two X and one Y meet the quorum, and fewer do not", () => {
    const policy = parsePolicy(text);
    expect(policy.logs.map((l) => l.name)).toEqual(["log.example/a"]);
    expect(quorumMet(policy, new Set(["X1", "X3", "Y2"]))).toBe(true);
    expect(quorumMet(policy, new Set(["X1", "Y1", "Y2"]))).toBe(false);
    expect(quorumMet(policy, new Set(["X1", "X2", "X3"]))).toBe(false);
  });

  it("given quorum none, then no cosignature is needed", () => {
    expect(quorumMet(parsePolicy(`log ${logVkey}\nquorum none\n`), new Set())).toBe(true);
  });

  it("refuses names used before they are defined, a missing or second quorum, bad thresholds, a key twice, a log key as a witness", () => {
    const x = w("x.example");
    for (const bad of [
      "group G any A\nquorum G\n",
      `witness A ${x}\n`,
      `witness A ${x}\nquorum A\nquorum A\n`,
      `witness A ${x}\ngroup G 2 A\nquorum G\n`,
      `witness A ${x}\nwitness B ${x}\nquorum A\n`,
      `witness A ${logVkey}\nquorum A\n`,
      `witness A ${x}\ngroup G any A A\nquorum G\n`,
      `witness A ${x}\ngroup G any none\nquorum G\n`,
      "frobnicate\nquorum none\n",
    ]) {
      expect(() => parsePolicy(bad), bad).toThrow(MalformedPolicyError);
    }
  });
});
