import { describe, expect, it } from "vitest";
import {
  capturesOf,
  checkCapturesHeld,
  checkEvidenceNamed,
  EVIDENCE_LATEST,
  evidenceNamed,
} from "./evidence.js";
import type { Envelope } from "./schemas.js";
import { AP, by, casualties, exact, given, opened } from "./test-kit.js";
import { parseEnvelope } from "./validate.js";

const sha = (n: number) => n.toString(16).padStart(64, "0");
const capture = (n: number, extra: Record<string, unknown> = {}): Envelope => ({
  eventId: `capture-${n}`,
  type: "EvidenceCaptured",
  source: AP,
  data: {
    sha256: sha(n),
    size: 100 + n,
    mediaType: "image/jpeg",
    kind: "image",
    title: `Photo ${n}`,
    ...extra,
  },
});
const resting = (eventId: string, ...evidence: string[]): Envelope =>
  ({
    ...casualties(eventId, "Pavlo Kyrylenko", { killed: exact(50) }),
    evidence,
  }) as Envelope;

describe("EvidenceCaptured: the envelope", () => {
  it("given a capture without attributedTo, when parsed, then it is valid", () => {
    expect(parseEnvelope(capture(1)).ok).toBe(true);
  });
  it("refuses a hash that is not 64 lowercase hex digits, naming data.sha256", () => {
    const parsed = parseEnvelope({ ...capture(1), data: { ...(capture(1).data as object), sha256: "ABC" } });
    expect(parsed.ok ? [] : parsed.errors.map((e) => e.path)).toEqual(["data.sha256"]);
  });
  it("refuses an evidence list on a capture itself, and a malformed one on a report", () => {
    expect(parseEnvelope({ ...capture(1), evidence: [sha(2)] }).ok).toBe(false);
    const parsed = parseEnvelope(resting("report-1", "nope"));
    expect(parsed.ok ? [] : parsed.errors.map((e) => e.path)).toEqual(["evidence[0]"]);
  });
  it("refuses a report naming the same evidence twice", () => {
    const twice = parseEnvelope(resting("report-2", sha(1), sha(1)));
    expect(twice.ok ? [] : twice.errors).toEqual([
      { path: "evidence", message: "names the same evidence twice" },
    ]);
  });
});

describe("the append's evidence rules", () => {
  it("names data.sha256 of each capture whose bytes are missing or of another size", () => {
    const captures = capturesOf([capture(1), capture(2), capture(3)], true);
    const errors = checkCapturesHeld(captures, [{ size: 101 }, null, { size: 7 }]);
    expect(errors.map((e) => e.path)).toEqual(["events[1].data.sha256", "events[2].data.sha256"]);
  });
  it("needs a report's evidence to be captured in the incident, or in the same append", () => {
    const named = evidenceNamed([capture(1), resting("report-1", sha(1), sha(2))], true);
    expect(named).toEqual([{ path: "events[1].evidence[1]", sha256: sha(2) }]);
    expect(checkEvidenceNamed(named, new Set([sha(2)]))).toEqual([]);
    expect(checkEvidenceNamed(named, new Set())).toEqual([
      { path: "events[1].evidence[1]", message: expect.stringContaining(sha(2)) },
    ]);
  });
});

describe("the summary's evidence block", () => {
  it("given no capture, then it is empty", () => {
    given(opened())
      .when()
      .then((summary) => expect(summary.evidence).toEqual({ count: 0, latest: [] }));
  });

  it("given captures, then it lists them newest first, with their access", () => {
    given(opened(), capture(1), capture(2, { access: "restricted" }))
      .when()
      .then((summary) =>
        expect(summary.evidence).toEqual({
          count: 2,
          latest: [
            { eventId: "capture-2", sha256: sha(2), kind: "image", title: "Photo 2", access: "restricted" },
            { eventId: "capture-1", sha256: sha(1), kind: "image", title: "Photo 1", access: "public" },
          ],
        }),
      );
  });

  it("given the same bytes captured publicly and restricted, then every capture of them shows them restricted", () => {
    const again = (n: number, access?: string) => ({
      ...capture(1, access ? { access } : {}),
      eventId: `capture-1-again-${n}`,
    });
    given(opened(), capture(1), again(1, "restricted"), again(2), capture(2))
      .when()
      .then((summary) =>
        expect(summary.evidence.latest.map((r) => [r.eventId, r.access])).toEqual([
          ["capture-2", "public"],
          ["capture-1-again-2", "restricted"],
          ["capture-1-again-1", "restricted"],
          ["capture-1", "restricted"],
        ]),
      );
  });

  it(`keeps at most ${EVIDENCE_LATEST} and counts them all`, () => {
    const many = Array.from({ length: EVIDENCE_LATEST + 5 }, (_, i) => capture(i + 1));
    given(opened(), ...many)
      .when()
      .then((summary, state) => {
        expect(summary.evidence.count).toBe(EVIDENCE_LATEST + 5);
        expect(summary.evidence.latest).toHaveLength(EVIDENCE_LATEST);
        expect(summary.evidence.latest[0]?.eventId).toBe(`capture-${EVIDENCE_LATEST + 5}`);
        expect(state.evidence?.latest).toHaveLength(EVIDENCE_LATEST);
      });
  });

  it("notes on each capture the reports resting on it", () => {
    given(opened(), capture(1), capture(2))
      .when(resting("report-1", sha(1)), {
        ...resting("report-2", sha(1), sha(2)),
        attributedTo: by("Someone"),
      } as Envelope)
      .then((_summary, state) => {
        const [first, second] = state.evidence?.latest ?? [];
        expect(first?.cited).toBe(2);
        expect(first?.citedBy?.map((r) => r.eventId)).toEqual(["report-1", "report-2"]);
        expect(second?.citedBy?.map((r) => r.eventId)).toEqual(["report-2"]);
      });
  });
});
