import { describe, expect, it } from "vitest";
import {
  checkDisclosure,
  clientSealedPaths,
  decodeDisclosure,
  digestOf,
  discloseErrors,
  encodeDisclosure,
  sealables,
  sealEnvelope,
  valueAt,
} from "./sealing.js";
import { canonicalJson } from "./stored-event.js";
import { parseEnvelope } from "./validate.js";

const AP = { publisher: "Associated Press" };
// biome-ignore lint/suspicious/noExplicitAny: tests read sealed envelopes loosely.
const victims = (data: any) => ({
  type: "VictimsRecorded",
  source: AP,
  attributedTo: { name: "Regional prosecutor" },
  data,
});
/** Salts that say which pointer they were made for: sealing is reproducible from its salts. */
const fixedSalt = (pointer: string) =>
  Buffer.from(`salt-of-${pointer}`.padEnd(16, "_")).toString("base64url");

describe("disclosures and their digests (RFC 9901 §4.2.3)", () => {
  it("given the RFC's example disclosure, then its SHA-256 digest is the RFC's", () => {
    // RFC 9901 §4.2.3: the digest is over the disclosure's ASCII exactly as written.
    const disclosure = "WyI2cU1RdlJMNWhhaiIsICJmYW1pbHlfbmFtZSIsICJNw7ZiaXVzIl0";
    expect(digestOf(disclosure)).toBe("uutlBuYeMDyjLLTpf6Jxi7yNkEF35jdyWMn9U7b_RYY");
    expect(decodeDisclosure(disclosure)).toEqual({
      salt: "6qMQvRL5haj",
      pointer: "family_name",
      value: "Möbius",
    });
  });

  it("encodes [salt, pointer, value] as base64url of its RFC 8785 JSON", () => {
    const d = encodeDisclosure("c2FsdA", "/data/victims/0/name", "Olena Ivanenko");
    expect(Buffer.from(d, "base64url").toString("utf8")).toBe(
      canonicalJson(["c2FsdA", "/data/victims/0/name", "Olena Ivanenko"]),
    );
    expect(d).toMatch(/^[A-Za-z0-9_-]+$/);
  });
});

describe("sealing an envelope", () => {
  const envelope = victims({
    victims: [
      { name: "Olena Ivanenko", age: 34, sex: "female", status: "civilian" },
      { nameVariants: ["Ivan P."], ageRange: { min: 60, max: 70 }, ageGroup: "elderly", place: "Kramatorsk" },
    ],
    disclose: { "/data/victims/0/name": "public" },
  });

  it("when sealed, then every sealed field holds a commitment and the public fields stay as posted", () => {
    const { sealed, disclosures } = sealEnvelope(envelope, fixedSalt);
    expect(disclosures.map((d) => d.pointer)).toEqual([
      "/data/victims/0/name",
      "/data/victims/0/age",
      "/data/victims/1/nameVariants",
      "/data/victims/1/ageRange",
      "/data/victims/1/place",
    ]);
    const [first, second] = sealed.data.victims;
    expect(first.sex).toBe("female");
    expect(first.status).toBe("civilian");
    expect(second.ageGroup).toBe("elderly");
    expect(first.name).toEqual({ $sealed: expect.stringMatching(/^sha-256:[A-Za-z0-9_-]{43}$/) });
    expect(JSON.stringify(sealed)).not.toContain("Olena");
    expect(JSON.stringify(sealed)).not.toContain("Kramatorsk");
    expect(envelope.data.victims[0]).toHaveProperty("name", "Olena Ivanenko"); // never mutated
    expect(disclosures.map((d) => d.visibility)).toEqual([
      "public",
      "restricted",
      "restricted",
      "restricted",
      "restricted",
    ]);
    for (const d of disclosures)
      expect(checkDisclosure(sealed, d.pointer, d.disclosure)).toEqual({ ok: true });
  });

  it("given the same salts, then sealing is the same; given other salts, the commitments differ", () => {
    const a = sealEnvelope(envelope, fixedSalt).sealed;
    expect(sealEnvelope(envelope, fixedSalt).sealed).toEqual(a);
    const other = sealEnvelope(envelope, (p) => fixedSalt(`${p}x`)).sealed;
    expect(other.data.victims[0].name).not.toEqual(a.data.victims[0].name);
  });

  it("a private person's name and role are sealed; an official's are not", () => {
    const privateOne = {
      type: "StatementMade",
      source: AP,
      attributedTo: { name: "Witness A", role: "neighbour", kind: "private", ref: "witness-1" },
      data: { quote: "I saw it", stance: "neutral" },
    };
    expect(sealables(privateOne).map((s) => s.pointer)).toEqual(["/attributedTo/name", "/attributedTo/role"]);
    const { sealed } = sealEnvelope(privateOne, fixedSalt);
    expect(sealed.attributedTo).toMatchObject({ kind: "private", ref: "witness-1" });
    expect(JSON.stringify(sealed)).not.toContain("Witness A");
    expect(sealables({ ...privateOne, attributedTo: { name: "Governor" } })).toEqual([]);
  });

  it("a disclosure that was altered, or names another pointer, does not open the commitment", () => {
    const { sealed, disclosures } = sealEnvelope(envelope, fixedSalt);
    const d = disclosures[0];
    if (!d) throw new Error("no disclosure");
    const forged = encodeDisclosure(d.salt, d.pointer, "Someone Else");
    expect(checkDisclosure(sealed, d.pointer, forged)).toMatchObject({ ok: false });
    expect(checkDisclosure(sealed, "/data/victims/0/age", d.disclosure)).toMatchObject({ ok: false });
    expect(checkDisclosure(sealed, d.pointer, "not!base64")).toMatchObject({ ok: false });
  });
});

describe("what a client may not send", () => {
  it("finds $sealed anywhere in a body", () => {
    expect(clientSealedPaths({ events: [{ data: { victims: [{ name: { $sealed: "x" } }] } }] })).toEqual([
      "events[0].data.victims[0].name.$sealed",
    ]);
    expect(clientSealedPaths({ a: 1, b: ["$sealed"] })).toEqual([]);
  });

  it("refuses a disclose mark on a public field, or on a field this event does not hold", () => {
    const envelope = victims({
      victims: [{ name: "A", sex: "male" }],
      disclose: {
        "/data/victims/0/sex": "public",
        "/data/victims/3/name": "public",
        "/data/victims/0/name": "public",
      },
    });
    expect(discloseErrors(envelope).map((e) => e.path)).toEqual([
      "data.disclose./data/victims/0/sex",
      "data.disclose./data/victims/3/name",
    ]);
  });

  it("validates victims: 1–500, each with a field, age or ageRange", () => {
    const ok = parseEnvelope(victims({ victims: [{ sex: "female" }] }));
    expect(ok.ok).toBe(true);
    const none = parseEnvelope(victims({ victims: [{}] }));
    expect(none.ok ? [] : none.errors.map((e) => e.path)).toEqual(["data.victims[0]"]);
    const many = parseEnvelope(victims({ victims: Array.from({ length: 501 }, () => ({ sex: "male" })) }));
    expect(many.ok ? [] : many.errors.map((e) => e.path)).toEqual(["data.victims"]);
    const both = parseEnvelope(victims({ victims: [{ age: 3, ageRange: { min: 1, max: 4 } }] }));
    expect(both.ok).toBe(false);
  });

  it("refuses a private person without a ref, and a link of an entry to itself", () => {
    const noRef = parseEnvelope({
      type: "StatementMade",
      source: AP,
      attributedTo: { name: "W", kind: "private" },
      data: { quote: "q", stance: "neutral" },
    });
    expect(noRef.ok ? [] : noRef.errors.map((e) => e.path)).toEqual(["attributedTo.ref"]);
    const self = parseEnvelope({
      type: "VictimsLinked",
      source: AP,
      attributedTo: { name: "Editor" },
      data: {
        a: { eventId: "victims-list-1", index: 2 },
        b: { eventId: "victims-list-1", index: 2 },
        relation: "same-person",
        certainty: "high",
      },
    });
    expect(self.ok ? [] : self.errors.map((e) => e.path)).toEqual(["data.b"]);
  });
});

describe("JSON Pointers (RFC 6901)", () => {
  it("reads own members and array items, with ~1 and ~0 escapes", () => {
    const doc = { a: [{ "b/c": 1, "d~e": 2 }] };
    expect(valueAt(doc, "/a/0/b~1c")).toBe(1);
    expect(valueAt(doc, "/a/0/d~0e")).toBe(2);
    expect(valueAt(doc, "/a/01")).toBeUndefined();
    expect(valueAt(doc, "/constructor")).toBeUndefined();
  });
});
