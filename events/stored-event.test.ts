import { createHash } from "node:crypto";
import canonicalize from "canonicalize";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Envelope } from "./schemas.js";
import {
  contentFingerprint,
  EMPTY_HEAD,
  GENESIS_HASH,
  reachesRecorded,
  type SealContext,
  type StoredEvent,
  sealEvents,
  verifyChain,
} from "./stored-event.js";
import {
  about,
  atLeast,
  casualties,
  denial,
  exact,
  INCIDENT,
  opened,
  retraction,
  sealAll,
  statement,
} from "./test-kit.js";

/** The hash as any outside reader would compute it from the contract, without our code. */
function independentHash(event: StoredEvent): string {
  const { hash: _, ...covered } = event;
  return createHash("sha256")
    .update(canonicalize(covered) as string, "utf8")
    .digest("hex");
}

const ctx = (now: string, ids: string[] = []): SealContext => ({
  incidentId: INCIDENT,
  recordedBy: "writer:alice",
  now,
  newEventId: () => ids.shift() ?? "unexpected-id",
});

const article: Envelope[] = [
  opened(),
  casualties("kramatorsk-ua-authorities-toll", "Ukrainian authorities", {
    killed: atLeast(50),
    injured: { qualifier: "dozens", text: "dozens more" },
  }),
  casualties("kramatorsk-prosecutor-present", "Office of the Prosecutor-General of Ukraine", {
    present: about(4000),
  }),
  statement("kramatorsk-guterres", "Antonio Guterres"),
  denial("kramatorsk-peskov-missile-denial"),
];

describe("sealEvents", () => {
  it("given an empty incident, then version 1's prevHash is 64 zeros and versions count up from 1", () => {
    const events = sealEvents(EMPTY_HEAD, article.slice(0, 3), ctx("2022-04-08T18:00:00.000Z"));
    expect(events.map((e) => e.version)).toEqual([1, 2, 3]);
    expect(events[0]?.prevHash).toBe("0".repeat(64));
    expect(GENESIS_HASH).toBe("0".repeat(64));
  });

  it("given a batch, then each prevHash is the hash before it, and each hash is sha256 of its RFC 8785 JSON", () => {
    const events = sealEvents(EMPTY_HEAD, article, ctx("2022-04-08T18:00:00.000Z"));
    let prev = "0".repeat(64);
    for (const event of events) {
      expect(event.prevHash).toBe(prev);
      expect(event.hash).toMatch(/^[0-9a-f]{64}$/);
      expect(event.hash).toBe(independentHash(event));
      prev = event.hash;
    }
  });

  it("given a head, then the batch continues its versions and its chain", () => {
    const head = { version: 7, hash: "a".repeat(64), recordedAt: "2022-04-08T18:00:00.000Z" };
    const events = sealEvents(head, article.slice(1, 3), ctx("2022-04-08T19:00:00.000Z"));
    expect(events.map((e) => [e.version, e.incidentId, e.recordedBy])).toEqual([
      [8, INCIDENT, "writer:alice"],
      [9, INCIDENT, "writer:alice"],
    ]);
    expect(events[0]?.prevHash).toBe("a".repeat(64));
    expect(events[1]?.prevHash).toBe(events[0]?.hash);
  });

  it("given the client's eventId, then it is kept; given none, then the server makes one", () => {
    const { eventId: _, ...anonymous } = statement("ignored-id", "Ursula von der Leyen");
    const events = sealEvents(
      EMPTY_HEAD,
      [opened(), anonymous as Envelope],
      ctx("2022-04-08T18:00:00.000Z", ["server-made-1"]),
    );
    expect(events.map((e) => e.eventId)).toEqual(["kramatorsk-opened", "server-made-1"]);
  });

  it("given the client's fields, then they are stored as posted, beside the server's", () => {
    const envelope: Envelope = {
      ...statement("kramatorsk-guterres", "Antonio Guterres"),
      occurredAt: "2022-04-08T12:00:00Z",
    };
    const [event] = sealEvents(EMPTY_HEAD, [envelope], ctx("2022-04-08T18:00:00.000Z"));
    expect(event).toEqual({
      ...envelope,
      incidentId: INCIDENT,
      version: 1,
      recordedAt: "2022-04-08T18:00:00.000Z",
      recordedBy: "writer:alice",
      // The version of its type's data schema (events/upcast.ts), so that readers know its shape.
      schemaVersion: 1,
      prevHash: GENESIS_HASH,
      hash: expect.any(String),
    });
  });

  it("given an event without occurredAt or attributedTo, then the stored event has no such keys", () => {
    const [event] = sealEvents(EMPTY_HEAD, [opened()], ctx("2022-04-08T18:00:00.000Z"));
    expect(Object.keys(event as object)).not.toContain("occurredAt");
    expect(Object.keys(event as object)).not.toContain("attributedTo");
  });

  it("given a clock ahead of the head, then every event of the batch is recorded at the clock's time", () => {
    const head = { version: 1, hash: "b".repeat(64), recordedAt: "2022-04-08T18:00:00.000Z" };
    const events = sealEvents(head, article.slice(1, 4), ctx("2022-04-08T18:00:05.123Z"));
    expect(events.map((e) => e.recordedAt)).toEqual(Array(3).fill("2022-04-08T18:00:05.123Z"));
  });

  it("given a clock behind the head, then recordedAt is the head's, never earlier", () => {
    const head = { version: 4, hash: "c".repeat(64), recordedAt: "2022-04-08T18:00:00.000Z" };
    const events = sealEvents(head, article.slice(1, 3), ctx("2022-04-08T17:59:59.999Z"));
    expect(events.map((e) => e.recordedAt)).toEqual(["2022-04-08T18:00:00.000Z", "2022-04-08T18:00:00.000Z"]);
  });
});

describe("hash", () => {
  const [event] = sealEvents(EMPTY_HEAD, [article[1] as Envelope], ctx("2022-04-08T18:00:00.000Z"));
  const sealed = event as StoredEvent;

  it("given the stored event's JSON as a reader gets it (keys in any order), then the hash recomputes", () => {
    const reordered = Object.fromEntries(
      Object.entries(JSON.parse(JSON.stringify(sealed))).reverse(),
    ) as unknown as StoredEvent;
    expect(independentHash(reordered)).toBe(sealed.hash);
    expect(verifyChain([reordered]).ok).toBe(true);
  });

  it.each([
    ["prevHash", { prevHash: "1".repeat(64) }],
    ["recordedBy", { recordedBy: "writer:mallory" }],
    ["recordedAt", { recordedAt: "2022-04-08T18:00:00.001Z" }],
    ["incidentId", { incidentId: "other-incident" }],
    ["eventId", { eventId: "other-event-id" }],
  ])("given only %s differs, then the hash differs: every field a reader sees is covered", (_, change) => {
    const changed = { ...sealed, ...change };
    expect(independentHash(changed)).not.toBe(sealed.hash);
  });
});

describe("verifyChain", () => {
  const chain = sealAll(article);

  it("given an untouched chain, then it is ok with its version and head hash", () => {
    expect(verifyChain(chain)).toEqual({ ok: true, version: 5, headHash: chain[4]?.hash });
  });

  it("given a chain that went through JSON, then it still verifies", () => {
    expect(verifyChain(JSON.parse(JSON.stringify(chain))).ok).toBe(true);
  });

  it("given no events, then it is ok at version 0 with the genesis hash", () => {
    expect(verifyChain([])).toEqual({ ok: true, version: 0, headHash: GENESIS_HASH });
  });

  const tampered = (index: number, change: (e: StoredEvent) => StoredEvent) =>
    chain.map((e, i) => (i === index ? change(structuredClone(e)) : e));

  it("given an edited figure in version 2, then version 2 is the first bad one", () => {
    const edited = tampered(1, (e) => {
      e.data.figures.killed.value = 49;
      return e;
    });
    expect(verifyChain(edited)).toMatchObject({
      ok: false,
      firstBadVersion: 2,
      version: 1,
      expected: independentHash(edited[1] as StoredEvent),
      found: chain[1]?.hash,
    });
  });

  it.each([
    ["source.publisher", (e: StoredEvent) => ({ ...e, source: { publisher: "RIA Novosti" } })],
    ["attributedTo.name", (e: StoredEvent) => ({ ...e, attributedTo: { name: "Someone else" } })],
    ["recordedAt", (e: StoredEvent) => ({ ...e, recordedAt: "2022-04-09T00:00:00.000Z" })],
    ["hash itself", (e: StoredEvent) => ({ ...e, hash: "f".repeat(64) })],
    ["an added field", (e: StoredEvent) => ({ ...e, note: "x" }) as StoredEvent],
  ])("given an edited %s in version 4, then version 4 is the first bad one", (_, change) => {
    expect(verifyChain(tampered(3, change))).toMatchObject({ ok: false, firstBadVersion: 4 });
  });

  it("given a prevHash that no longer links (the event's own hash recomputed to match), then that version is named", () => {
    const broken = tampered(2, (e) => {
      const relinked = { ...e, prevHash: "d".repeat(64) };
      return { ...relinked, hash: independentHash(relinked as StoredEvent) };
    });
    expect(verifyChain(broken)).toMatchObject({
      ok: false,
      firstBadVersion: 3,
      reason: expect.stringContaining("prevHash"),
      expected: chain[1]?.hash,
      found: "d".repeat(64),
    });
  });

  it("given a rewritten event whose successors are left alone, then the successor's link is what breaks", () => {
    const rewritten = tampered(1, (e) => {
      const forged = { ...e, data: { figures: { killed: exact(5) } } };
      return { ...forged, hash: independentHash(forged as StoredEvent) };
    });
    expect(verifyChain(rewritten)).toMatchObject({ ok: false, firstBadVersion: 3 });
  });

  it("given a missing version, then that version is named", () => {
    const gap = chain.filter((e) => e.version !== 3);
    expect(verifyChain(gap)).toMatchObject({ ok: false, firstBadVersion: 3, version: 2 });
  });

  it("given a chain that does not start at version 1, then version 1 is named", () => {
    expect(verifyChain(chain.slice(1))).toMatchObject({ ok: false, firstBadVersion: 1 });
  });

  it("given two events swapped, then the first out of place is named", () => {
    const swapped = [chain[0], chain[2], chain[1], chain[3]] as StoredEvent[];
    expect(verifyChain(swapped)).toMatchObject({ ok: false, firstBadVersion: 2 });
  });

  it("given a retraction, then the retracted event stays in the chain and it verifies", () => {
    const withRetraction = sealAll([retraction("retract-guterres", "kramatorsk-guterres")], chain);
    expect(verifyChain([...chain, ...withRetraction])).toMatchObject({ ok: true, version: 6 });
  });
});

describe("contentFingerprint: what makes a repeated post 'the same content'", () => {
  const envelope = casualties("kramatorsk-governor-toll", "Pavlo Kyrylenko", {
    killed: exact(50),
    childrenKilled: exact(5),
  });
  const [stored] = sealAll([envelope]);

  it("given the envelope and the event stored from it, then the fingerprints agree", () => {
    expect(contentFingerprint(INCIDENT, stored as StoredEvent)).toBe(contentFingerprint(INCIDENT, envelope));
  });

  it("given the same content with keys in another order, then the fingerprints agree", () => {
    const reordered = Object.fromEntries(Object.entries(envelope).reverse());
    reordered.data = { figures: { childrenKilled: exact(5), killed: exact(50) } };
    expect(Object.keys(reordered)).not.toEqual(Object.keys(envelope));
    expect(contentFingerprint(INCIDENT, reordered as unknown as Envelope)).toBe(
      contentFingerprint(INCIDENT, envelope),
    );
  });

  it.each([
    ["another figure", { ...envelope, data: { figures: { killed: exact(51), childrenKilled: exact(5) } } }],
    ["another source", { ...envelope, source: { publisher: "Reuters" } }],
    ["another speaker", { ...envelope, attributedTo: { name: "Someone" } }],
    ["an occurredAt", { ...envelope, occurredAt: "2022-04-08T09:00:00Z" }],
  ])("given %s, then the fingerprint differs", (_, other) => {
    expect(contentFingerprint(INCIDENT, other as Envelope)).not.toBe(contentFingerprint(INCIDENT, envelope));
  });

  it("given another incident, then the fingerprint differs", () => {
    expect(contentFingerprint("bucha-church-mass-grave", envelope)).not.toBe(
      contentFingerprint(INCIDENT, envelope),
    );
  });
});

// ---- properties ----------------------------------------------------------------------------

const word = fc.stringMatching(/^[A-Za-z][A-Za-z0-9 ]{0,11}$/);
const id = fc.stringMatching(/^[a-z0-9]{8,12}$/);
const figure = fc.oneof(
  fc.record({
    value: fc.nat(100_000),
    qualifier: fc.constantFrom("exact", "at-least", "at-most", "about" as const),
  }),
  fc.record({ qualifier: fc.constantFrom("dozens", "hundreds" as const), text: word }),
);
const envelope: fc.Arbitrary<Envelope> = fc.oneof(
  fc
    .record({ eventId: id, who: word, n: figure })
    .map(({ eventId, who, n }) => casualties(eventId, who, { killed: n })),
  fc
    .record({ eventId: id, who: word, quote: word })
    .map(({ eventId, who, quote }) => statement(eventId, who, quote)),
  fc.record({ eventId: id, who: word }).map(({ eventId, who }) => denial(eventId, who)),
);
const chainOf = fc
  .tuple(fc.array(envelope, { minLength: 0, maxLength: 8 }), fc.integer({ min: 1, max: 3 }))
  .map(([envelopes, batches]) => {
    // Sealed in a few batches, as separate appends would be.
    const all = [opened(), ...envelopes];
    const size = Math.ceil(all.length / batches);
    const events: StoredEvent[] = [];
    for (let i = 0; i < all.length; i += size) {
      const last = events[events.length - 1];
      const head = last
        ? { version: last.version, hash: last.hash, recordedAt: last.recordedAt }
        : EMPTY_HEAD;
      events.push(...sealEvents(head, all.slice(i, i + size), ctx(`2022-04-08T18:0${i % 10}:00.000Z`)));
    }
    return events;
  });

function parsesTo(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

describe("any chain of sealed events", () => {
  it("verifies, up to its last version and hash", () => {
    fc.assert(
      fc.property(chainOf, (events) => {
        expect(verifyChain(events)).toEqual({
          ok: true,
          version: events.length,
          headHash: events[events.length - 1]?.hash,
        });
      }),
      { numRuns: 150 },
    );
  });

  it("catches any single-character edit to any event's JSON, at that event's version", () => {
    const position = fc.nat();
    const replacement = fc.constantFrom(...'0123456789abcdefxyzABZ -_:."{}[],');
    let checked = 0;
    fc.assert(
      fc.property(chainOf, fc.nat(), position, replacement, (events, which, at, char) => {
        const index = which % events.length;
        const text = JSON.stringify(events[index]);
        const i = at % text.length;
        if (text[i] === char) return;
        const edited = parsesTo(text.slice(0, i) + char + text.slice(i + 1));
        // Not JSON, or not an object any more: no reader would take it for an event.
        if (edited === undefined || typeof edited !== "object" || edited === null) return;
        // Same meaning (JSON spelled differently): there is nothing to catch.
        if (canonicalize(edited) === canonicalize(events[index])) return;
        checked += 1;
        const check = verifyChain(events.map((e, k) => (k === index ? (edited as StoredEvent) : e)));
        expect(check).toMatchObject({ ok: false, firstBadVersion: index + 1 });
      }),
      { numRuns: 400 },
    );
    // Most edits land in hashes, ids and text and still parse: the property is not vacuous.
    expect(checked).toBeGreaterThan(100);
  });
});

describe("reachesRecorded: a chain against the version the archive recorded", () => {
  const intact = { ok: true as const, version: 4, headHash: "h4" };

  it("given a chain that reaches the recorded version, or none recorded, then the check stands", () => {
    expect(reachesRecorded(intact, 4)).toBe(intact);
    expect(reachesRecorded(intact, 3)).toBe(intact);
    expect(reachesRecorded(intact, null)).toBe(intact);
  });

  it("given a chain that ends before the recorded version, then it is broken at the first missing one", () => {
    expect(reachesRecorded(intact, 6)).toEqual({
      ok: false,
      firstBadVersion: 5,
      version: 4,
      reason:
        "the stored chain ends at version 4, but the archive recorded version 6 of this incident: events after 4 are missing",
    });
  });

  it("given a chain already broken, then its own finding stands", () => {
    const broken = { ok: false as const, firstBadVersion: 2, reason: "edited", version: 1 };
    expect(reachesRecorded(broken, 9)).toBe(broken);
  });
});
