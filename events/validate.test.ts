import { describe, expect, it } from "vitest";
import { EventId, type EventType, IncidentId, MAX_BATCH } from "./schemas.js";
import { casualties, opened } from "./test-kit.js";
import { type FieldError, parseAppendBody, parseEnvelope } from "./validate.js";

/** A valid body of each type, with every required field and nothing more. */
const valid = {
  IncidentOpened: {
    type: "IncidentOpened",
    source: { publisher: "Associated Press" },
    data: {
      title: "Mass grave near a church in Bucha",
      kind: "mass-grave",
      location: { name: "Bucha", country: "UA" },
    },
  },
  CasualtiesReported: {
    type: "CasualtiesReported",
    source: { publisher: "Associated Press" },
    attributedTo: { name: "Office of the Prosecutor-General of Ukraine" },
    data: { figures: { killed: { value: 67, qualifier: "about", text: "About 67 people were buried" } } },
  },
  StatementMade: {
    type: "StatementMade",
    source: { publisher: "Associated Press" },
    attributedTo: { name: "Antonio Guterres" },
    data: { quote: "completely unacceptable", stance: "condemns" },
  },
  DenialIssued: {
    type: "DenialIssued",
    source: { publisher: "Associated Press" },
    attributedTo: { name: "Dmitry Peskov" },
    data: { claim: "that Russian forces use the type of missile that hit the station" },
  },
  ClaimAssessed: {
    type: "ClaimAssessed",
    source: { publisher: "Associated Press" },
    attributedTo: { name: "Experts" },
    data: { targetEventId: "kramatorsk-peskov-missile-denial", verdict: "false" },
  },
  ReportRetracted: {
    type: "ReportRetracted",
    source: { publisher: "Associated Press" },
    attributedTo: { name: "Associated Press" },
    data: { targetEventId: "kramatorsk-governor-toll", reason: "wrong figure" },
  },
} as const;
type TypeName = keyof typeof valid;

// biome-ignore lint/suspicious/noExplicitAny: tests edit bodies freely, as a client could.
type Body = any;
const copy = (type: TypeName): Body => structuredClone(valid[type]);

/** The body with one field (a dotted path) removed or set. */
function edit(body: Body, path: string, value?: unknown): Body {
  const keys = path.split(".");
  const last = keys.pop() as string;
  const parent = keys.reduce((o, k) => o[k], body);
  if (value === undefined) delete parent[last];
  else parent[last] = value;
  return body;
}
const errorsOf = (body: unknown): FieldError[] => {
  const result = parseAppendBody(body);
  return result.ok ? [] : result.errors;
};
const pathsOf = (body: unknown) => errorsOf(body).map((e) => e.path);
const withFigure = (figure: unknown): Body =>
  edit(copy("CasualtiesReported"), "data.figures", { killed: figure });

describe("a valid event of each type", () => {
  it.each(Object.keys(valid) as TypeName[])(
    "given a minimal %s, then it parses as a batch of one",
    (type) => {
      const result = parseAppendBody(copy(type));
      expect(result).toEqual({ ok: true, value: [valid[type]], batched: false });
    },
  );

  it("given the seed article's figures, then every form parses", () => {
    const body = casualties("kramatorsk-governor-toll", "Pavlo Kyrylenko", {
      killed: { value: 50, qualifier: "exact", text: "50 people were killed" },
      childrenKilled: { value: 5, qualifier: "exact", text: "including five children" },
      injured: { qualifier: "dozens", text: "many dozens" },
      present: { value: 4000, qualifier: "about" },
      wounded: { min: 15, max: 20 },
      missing: { qualifier: "hundreds" },
    });
    expect(parseAppendBody(body)).toEqual({ ok: true, value: [body], batched: false });
  });

  it("given text with spaces around it, then it is kept exactly as posted", () => {
    const result = parseAppendBody(edit(copy("StatementMade"), "data.quote", "  completely unacceptable \n"));
    expect(result.ok && result.value[0]?.data).toMatchObject({ quote: "  completely unacceptable \n" });
  });

  it("given a control character in text, then it is refused; tabs and line breaks are fine", () => {
    expect(errorsOf(edit(copy("StatementMade"), "data.quote", "hidden\u0000text"))).toEqual([
      { path: "data.quote", message: "must not contain control characters (tab and line breaks are fine)" },
    ]);
    expect(parseAppendBody(edit(copy("StatementMade"), "data.quote", "line one\n\tline two\r\n")).ok).toBe(
      true,
    );
  });

  it("given an IncidentOpened without attributedTo but with every optional field, then it parses", () => {
    expect(parseAppendBody(opened()).ok).toBe(true);
    const full = edit(copy("IncidentOpened"), "data.occurredAt", "2022-04-08T09:00:00Z");
    full.data.location = {
      name: "Kramatorsk",
      region: "Donetsk Oblast",
      country: "UA",
      lat: 48.73,
      lon: 37.58,
    };
    full.data.description = "A missile hit the train station.";
    full.eventId = "kramatorsk-opened";
    full.occurredAt = "2022-04-08T10:30:00+03:00";
    expect(errorsOf(full)).toEqual([]);
  });
});

describe("each event type's required fields", () => {
  it.each([
    ["IncidentOpened", "source.publisher"],
    ["IncidentOpened", "data.title"],
    ["IncidentOpened", "data.kind"],
    ["IncidentOpened", "data.location.name"],
    ["IncidentOpened", "data.location.country"],
    ["CasualtiesReported", "source.publisher"],
    ["CasualtiesReported", "attributedTo.name"],
    ["CasualtiesReported", "data.figures"],
    ["StatementMade", "data.quote"],
    ["StatementMade", "data.stance"],
    ["DenialIssued", "data.claim"],
    ["ClaimAssessed", "data.targetEventId"],
    ["ClaimAssessed", "data.verdict"],
    ["ReportRetracted", "data.targetEventId"],
    ["ReportRetracted", "data.reason"],
  ] as [TypeName, string][])("given a %s without %s, then that field is named", (type, path) => {
    expect(pathsOf(edit(copy(type), path))).toEqual([path]);
  });

  it.each([
    ["IncidentOpened", "source", ["source.publisher"]],
    ["IncidentOpened", "data", ["data.title", "data.kind", "data.location.name", "data.location.country"]],
    ["IncidentOpened", "data.location", ["data.location.name", "data.location.country"]],
    ["CasualtiesReported", "attributedTo", ["attributedTo.name"]],
    ["StatementMade", "attributedTo", ["attributedTo.name"]],
    ["StatementMade", "data", ["data.quote", "data.stance"]],
    ["DenialIssued", "attributedTo", ["attributedTo.name"]],
    ["ClaimAssessed", "attributedTo", ["attributedTo.name"]],
    ["ClaimAssessed", "data", ["data.targetEventId", "data.verdict"]],
    ["ReportRetracted", "attributedTo", ["attributedTo.name"]],
  ] as [TypeName, string, string[]][])(
    "given a %s without the object %s, then each required field inside it is named, not the object",
    (type, path, named) => {
      expect(pathsOf(edit(copy(type), path))).toEqual(named);
    },
  );

  it.each([
    ["data.quote", "StatementMade"],
    ["data.claim", "DenialIssued"],
    ["source.publisher", "DenialIssued"],
    ["attributedTo.name", "StatementMade"],
  ] as [string, TypeName][])(
    "given %s of a %s that is only whitespace, then it must not be empty",
    (path, type) => {
      expect(errorsOf(edit(copy(type), path, "   "))).toEqual([
        { path, message: "must not be empty or blank" },
      ]);
    },
  );

  it.each([
    ["StatementMade", "data.stance", "shrugs"],
    ["ClaimAssessed", "data.verdict", "maybe"],
    ["IncidentOpened", "data.kind", "Missile Strike"],
    ["IncidentOpened", "data.location.country", "ua"],
    ["IncidentOpened", "data.occurredOn", "8 April 2022"],
    ["CasualtiesReported", "occurredAt", "yesterday"],
    ["CasualtiesReported", "source.url", "ftp://example.org/x"],
  ] as [TypeName, string, unknown][])(
    "given a %s whose %s is %j, then that field is named",
    (type, path, value) => {
      expect(pathsOf(edit(copy(type), path, value))).toEqual([path]);
    },
  );

  it("given a place with a latitude and no longitude, or the other way round, then the missing one is named", () => {
    const at = (point: Record<string, number>) => {
      const body = copy("IncidentOpened");
      Object.assign((body.data as { location: Record<string, unknown> }).location, point);
      return errorsOf(body);
    };
    expect(at({ lat: 50 })).toEqual([
      { path: "data.location.lon", message: "is required with lat: a point needs both" },
    ]);
    expect(at({ lon: 30 })).toEqual([
      { path: "data.location.lat", message: "is required with lon: a point needs both" },
    ]);
    expect(at({ lat: 50, lon: 30 })).toEqual([]);
  });

  it("given a day or a time that is not one, then the message shows the form it must take", () => {
    const opening = copy("IncidentOpened");
    expect(errorsOf(edit(opening, "data.occurredOn", "2022-02-31"))).toEqual([
      { path: "data.occurredOn", message: "must be a real day written YYYY-MM-DD, e.g. 2022-04-08" },
    ]);
    expect(errorsOf(edit(copy("StatementMade"), "occurredAt", "2022-04-08"))).toEqual([
      { path: "occurredAt", message: "must be a date and time with its zone, e.g. 2022-04-08T09:00:00Z" },
    ]);
    // Where either is taken, the message says both.
    expect(errorsOf(edit(copy("StatementMade"), "source.publishedAt", "yesterday"))).toEqual([
      {
        path: "source.publishedAt",
        message: "must be a day (YYYY-MM-DD, e.g. 2022-04-08) or a date and time with its zone",
      },
    ]);
  });

  it("given a list sent as a string, then only its type is named, not the list's bound measured on the string", () => {
    const body = {
      type: "VictimsRecorded",
      source: { publisher: "AP" },
      attributedTo: { name: "Regional prosecutor's office" },
      data: {
        victims: [{ name: "A", status: "civilian", nameVariants: "a string of more than twenty characters" }],
      },
    };
    expect(errorsOf(body)).toEqual([
      { path: "data.victims[0].nameVariants", message: "Invalid input: expected array, received string" },
    ]);
  });

  it("given a country code ISO 3166-1 does not assign (XX, or the withdrawn FX and YU), then it is named; XK is Kosovo", () => {
    for (const code of ["XX", "FX", "YU", "EU"]) {
      expect(pathsOf(edit(copy("IncidentOpened"), "data.location.country", code)), code).toEqual([
        "data.location.country",
      ]);
    }
    for (const code of ["UA", "FR", "BF", "XK"])
      expect(errorsOf(edit(copy("IncidentOpened"), "data.location.country", code)), code).toEqual([]);
  });

  it("given an IncidentOpened with both occurredAt and occurredOn, then it asks for one", () => {
    const body = edit(copy("IncidentOpened"), "data.occurredAt", "2022-04-08T09:00:00Z");
    body.data.occurredOn = "2022-04-08";
    expect(errorsOf(body)).toEqual([
      { path: "data.occurredOn", message: "give occurredAt or occurredOn, not both" },
    ]);
  });

  it("given a string with a lone UTF-16 surrogate (JSON '\\ud800'), then it is refused at the door", () => {
    // RFC 8785 has no form for it: it would pass here and then fail at hashing.
    const body = JSON.parse(
      '{"type":"StatementMade","source":{"publisher":"AP","url":"https://example.org/\\udc00"},' +
        '"attributedTo":{"name":"X"},"data":{"quote":"a \\ud800 b","stance":"neutral"}}',
    );
    expect(pathsOf(body)).toEqual(["source.url", "data.quote"]);
    const paired = edit(copy("StatementMade"), "data.quote", JSON.parse('"emoji \\ud83d\\ude00 ok"'));
    expect(errorsOf(paired)).toEqual([]);
  });
});

/** What each type requires beyond `source.publisher`, every field by its own path (a Record: each type named). */
const REQUIRED_IN_DATA: Record<EventType, string[]> = {
  IncidentOpened: ["data.title", "data.kind", "data.location.name", "data.location.country"],
  CasualtiesReported: ["attributedTo.name", "data.figures"],
  StatementMade: ["attributedTo.name", "data.quote", "data.stance"],
  DenialIssued: ["attributedTo.name", "data.claim"],
  ClaimAssessed: ["attributedTo.name", "data.targetEventId", "data.verdict"],
  ReportRetracted: ["attributedTo.name", "data.targetEventId", "data.reason"],
  // Every field of a revision is optional; at least one is needed, which `data` is named for.
  IncidentRevised: ["data"],
  IncidentGraded: ["data.scale", "data.grade"],
  AttributionAssessed: ["data.perpetrator.name", "data.certainty"],
  IncidentsLinked: ["data.otherIncidentId", "data.relation"],
  VictimsRecorded: ["attributedTo.name", "data.victims"],
  VictimsLinked: [
    "attributedTo.name",
    "data.a.eventId",
    "data.a.index",
    "data.b.eventId",
    "data.b.index",
    "data.relation",
    "data.certainty",
  ],
  RedactionApplied: [
    "attributedTo.name",
    "data.targetEventId",
    "data.pointers",
    "data.effect",
    "data.reason",
  ],
  EvidenceCaptured: ["data.sha256", "data.size", "data.mediaType", "data.kind"],
};

describe("every failing field at once", () => {
  it("given an empty IncidentOpened, then every required field is named in one answer, each by its own path", () => {
    expect(errorsOf({ type: "IncidentOpened", data: {} })).toEqual([
      { path: "source.publisher", message: "is required" },
      { path: "data.title", message: "is required" },
      { path: "data.kind", message: "is required" },
      { path: "data.location.name", message: "is required" },
      { path: "data.location.country", message: "is required" },
    ]);
  });

  it("given an IncidentOpened whose location is empty, then its name and country are named", () => {
    const body = edit(copy("IncidentOpened"), "data.location", {});
    expect(errorsOf(body)).toEqual([
      { path: "data.location.name", message: "is required" },
      { path: "data.location.country", message: "is required" },
    ]);
  });

  it.each(Object.entries(REQUIRED_IN_DATA))(
    "given a %s with an empty data and nothing else, then each of its required fields is named at once",
    (type, named) => {
      expect(pathsOf({ type, data: {} })).toEqual(["source.publisher", ...named]);
      // Without `data` at all, the same fields: a missing object is no shorter an answer.
      expect(pathsOf({ type })).toEqual(["source.publisher", ...named]);
    },
  );

  it("given an IncidentRevised with an empty data, then data is named with what it needs", () => {
    expect(errorsOf({ type: "IncidentRevised", source: { publisher: "Editors" }, data: {} })).toEqual([
      { path: "data", message: expect.stringContaining("give at least one of title") },
    ]);
  });

  it("given an IncidentRevised that changes part of a place, then its name and country are named with the whole-place rule", () => {
    const rule =
      "is required: a revised location replaces the whole place, so give its name and country again with what changes";
    expect(
      errorsOf({
        type: "IncidentRevised",
        source: { publisher: "Editors" },
        data: { location: { precision: "adm1" } },
      }),
    ).toEqual([
      { path: "data.location.name", message: rule },
      { path: "data.location.country", message: rule },
    ]);
    // An opening needs them too, but has no earlier place to replace: plainly required.
    expect(errorsOf(edit(copy("IncidentOpened"), "data.location", { precision: "adm1" }))).toEqual([
      { path: "data.location.name", message: "is required" },
      { path: "data.location.country", message: "is required" },
    ]);
  });

  it("given a field of the wrong type beside a rule other fields break, then both are named in one answer", () => {
    const body = edit(
      edit(edit(copy("IncidentOpened"), "data.description", 5), "data.occurredOn", "2022-04-08"),
      "data.occurredUntil",
      "2022-04-01",
    );
    expect(errorsOf(body)).toEqual([
      { path: "data.description", message: expect.stringContaining("expected string") },
      { path: "data.occurredUntil", message: "must not be before the start (occurredAt or occurredOn)" },
    ]);
    const witness = {
      type: "StatementMade",
      source: { publisher: "AP" },
      attributedTo: { name: "Hanna", kind: "private", role: 5 },
      data: { quote: "We ran", stance: "neutral" },
    };
    expect(pathsOf(witness)).toEqual(["attributedTo.role", "attributedTo.ref"]);
    // A rule is never run on an object that is not one: an entry of the wrong type is named alone.
    const victims = {
      type: "VictimsRecorded",
      source: { publisher: "AP" },
      attributedTo: { name: "Recorder" },
      data: { victims: [null, {}] },
    };
    expect(errorsOf(victims)).toEqual([
      { path: "data.victims[0]", message: expect.stringContaining("expected object") },
      { path: "data.victims[1]", message: "a victim needs at least one field" },
    ]);
  });

  it("given an object of the wrong type where one is required, then that object is named itself", () => {
    const body = edit(copy("IncidentOpened"), "data.location", "Kramatorsk");
    expect(pathsOf(body)).toEqual(["data.location"]);
    expect(pathsOf(edit(copy("StatementMade"), "attributedTo", null))).toEqual(["attributedTo"]);
  });

  it("given a body without location, then it is refused as sent: nothing is filled in", () => {
    const body = edit(copy("IncidentOpened"), "data.location");
    const before = structuredClone(body);
    expect(parseAppendBody(body).ok).toBe(false);
    expect(body).toEqual(before);
  });

  it("given a batch whose second event has no location, then its fields are named under events[1]", () => {
    const events = [copy("StatementMade"), edit(copy("IncidentOpened"), "data.location")];
    expect(pathsOf({ events })).toEqual(["events[1].data.location.name", "events[1].data.location.country"]);
  });

  it("given an unknown field beside the missing fields, then both are named", () => {
    expect(pathsOf({ type: "DenialIssued", data: { denial: "x" } })).toEqual([
      "source.publisher",
      "attributedTo.name",
      "data.claim",
      "data.denial",
    ]);
  });
});

describe("the type", () => {
  it("given an unknown type, then `type` is named with the known ones", () => {
    const errors = errorsOf({ ...copy("StatementMade"), type: "RumourHeard" });
    expect(errors).toEqual([{ path: "type", message: expect.stringContaining("CasualtiesReported") }]);
  });

  it("given no type, then `type` is required", () => {
    const { type: _, ...body } = copy("StatementMade");
    expect(errorsOf(body)).toEqual([{ path: "type", message: "is required" }]);
  });

  it("given a known type with another type's data, then the data's fields are named", () => {
    const body = { ...copy("StatementMade"), data: valid.DenialIssued.data };
    expect(pathsOf(body)).toEqual(expect.arrayContaining(["data.quote", "data.claim"]));
  });
});

describe("when an incident ended", () => {
  const opening = (envelope: Record<string, unknown>, data: Record<string, unknown>) => ({
    ...copy("IncidentOpened"),
    ...envelope,
    data: { ...valid.IncidentOpened.data, ...data },
  });

  it("given an opening whose start is its own occurredAt, when it ends before that, then occurredUntil is named", () => {
    const body = opening({ occurredAt: "2022-03-05T10:00:00Z" }, { occurredUntil: "2022-03-01" });
    expect(errorsOf(body)).toEqual([
      { path: "data.occurredUntil", message: "must not be before the start (occurredAt or occurredOn)" },
    ]);
  });

  it("given an end and no start at all, then occurredUntil is named as needing one", () => {
    expect(errorsOf(opening({}, { occurredUntil: "2022-03-01" }))).toEqual([
      { path: "data.occurredUntil", message: "needs a start: give occurredAt or occurredOn too" },
    ]);
    expect(
      errorsOf(opening({ occurredAt: "2022-03-01T10:00:00Z" }, { occurredUntil: "2022-03-02" })),
    ).toEqual([]);
  });

  it("given a start in its data, then the opening's own occurredAt is not the start", () => {
    const body = opening(
      { occurredAt: "2022-04-20T10:00:00Z" },
      { occurredOn: "2022-04-08", occurredUntil: "2022-04-09" },
    );
    expect(errorsOf(body)).toEqual([]);
  });

  it("given a start late in its own offset, when it ends on the day it was written with, then it is accepted", () => {
    const late = { occurredAt: "2022-04-08T23:30:00-05:00" };
    expect(errorsOf(opening({}, { ...late, occurredUntil: "2022-04-08" }))).toEqual([]);
    expect(pathsOf(opening({}, { ...late, occurredUntil: "2022-04-07" }))).toEqual(["data.occurredUntil"]);
    // An instant end compares as an instant: 01:00 UTC on the 9th is before 04:30 UTC.
    expect(pathsOf(opening({}, { ...late, occurredUntil: "2022-04-09T01:00:00Z" }))).toEqual([
      "data.occurredUntil",
    ]);
  });

  it("given an end written on an earlier day than its start, then it is refused, whatever the instants say", () => {
    // 21:30 and 22:00 UTC on the 8th, but written as the 9th and the 8th: date_end would precede date_start.
    const start = { occurredAt: "2022-04-09T00:30:00+03:00" };
    expect(pathsOf(opening({}, { ...start, occurredUntil: "2022-04-08T22:00:00Z" }))).toEqual([
      "data.occurredUntil",
    ]);
    const day = { occurredOn: "2022-04-08" };
    expect(pathsOf(opening({}, { ...day, occurredUntil: "2022-04-07T23:00:00-03:00" }))).toEqual([
      "data.occurredUntil",
    ]);
    // An instant written on the start's day agrees with a date start, whatever its offset.
    expect(errorsOf(opening({}, { ...day, occurredUntil: "2022-04-08T01:00:00+03:00" }))).toEqual([]);
  });
});

describe("a bound", () => {
  it("given text, a list or a number past its bound, then the bound is said in words", () => {
    const long = { ...copy("StatementMade"), attributedTo: { name: "x", side: "s".repeat(101) } };
    expect(errorsOf(long)).toEqual([
      { path: "attributedTo.side", message: "must be at most 100 characters" },
    ]);
    const opening = copy("IncidentOpened");
    Object.assign((opening.data as { location: Record<string, unknown> }).location, { lat: 91, lon: 30 });
    expect(errorsOf(opening)).toEqual([{ path: "data.location.lat", message: "must be at most 90" }]);
    const redaction = {
      type: "RedactionApplied",
      source: { publisher: "AP" },
      attributedTo: { name: "Editor" },
      data: { targetEventId: "victims-list-1", pointers: [], effect: "erased", reason: "minor" },
    };
    expect(errorsOf(redaction)).toEqual([{ path: "data.pointers", message: "must have at least 1 item" }]);
  });
});

describe("a whole number", () => {
  it("given a victim's age as a fraction, or past its bound, then one message says which whole numbers it takes", () => {
    const withAge = (age: unknown) => ({
      type: "VictimsRecorded",
      source: { publisher: "AP" },
      attributedTo: { name: "Regional prosecutor's office" },
      data: { victims: [{ name: "A", status: "civilian", age }] },
    });
    for (const age of [1.5, 151, 1e20, -1])
      expect(errorsOf(withAge(age)), String(age)).toEqual([
        { path: "data.victims[0].age", message: "must be a whole number from 0 to 150" },
      ]);
    expect(errorsOf(withAge(150))).toEqual([]);
  });
});

describe("a choice", () => {
  it("given no stance, then `data.stance` is required", () => {
    const body = copy("StatementMade");
    delete (body.data as { stance?: string }).stance;
    expect(errorsOf(body)).toEqual([{ path: "data.stance", message: "is required" }]);
  });

  it("given a stance not among the choices, then the choices are named", () => {
    const body = { ...copy("StatementMade"), data: { quote: "no", stance: "angry" } };
    expect(errorsOf(body)).toEqual([
      { path: "data.stance", message: "must be one of condemns, accuses, denies, supports, neutral" },
    ]);
  });
});

describe("unknown fields", () => {
  it.each([
    ["top level", "severity"],
    ["data", "data.severity"],
    ["source", "source.reliability"],
    ["attributedTo", "attributedTo.age"],
    ["location", "data.location.city"],
  ])("given an unknown field in %s, then it is named as not known", (_, path) => {
    const body = edit(copy(path.startsWith("data.location") ? "IncidentOpened" : "StatementMade"), path, "x");
    expect(errorsOf(body)).toEqual([{ path, message: "is not a known field" }]);
  });

  it("given server fields (version, hash) posted by a client, then they are unknown fields", () => {
    const body = { ...copy("StatementMade"), version: 3, hash: "0".repeat(64) };
    expect(pathsOf(body).sort()).toEqual(["hash", "version"]);
  });
});

describe("figures", () => {
  it.each([
    ["a negative value", { value: -1, qualifier: "exact" }, "data.figures.killed.value"],
    ["a non-integer value", { value: 50.5, qualifier: "at-least" }, "data.figures.killed.value"],
    ["a numeric string", { value: "50", qualifier: "exact" }, "data.figures.killed.value"],
    ["no qualifier", { value: 50 }, "data.figures.killed.qualifier"],
    ["an unknown qualifier", { value: 50, qualifier: "roughly" }, "data.figures.killed.qualifier"],
    ["min above max", { min: 20, max: 15 }, "data.figures.killed.min"],
    ["a negative min", { min: -1, max: 15 }, "data.figures.killed.min"],
    ["a non-integer max", { min: 1, max: 1.5 }, "data.figures.killed.max"],
    ["a value on a word figure", { qualifier: "dozens", value: 30 }, "data.figures.killed.value"],
    ["an empty text", { qualifier: "dozens", text: "" }, "data.figures.killed.text"],
    ["no figure at all", {}, "data.figures.killed.qualifier"],
  ])("given %s, then the failing field is named", (_, figure, path) => {
    expect(pathsOf(withFigure(figure))).toEqual([path]);
  });

  it.each<[string, unknown]>([
    ["a fraction", 1.5],
    ["a number past the most a figure holds", 100_000_001],
    ["a number past JavaScript's safe integers", 1e20],
    ["a negative number", -1],
    ["a numeric string", "50"],
    ["null", null],
  ])("given %s as a count, then one message says in words which whole numbers it takes", (_, value) => {
    const rule = "must be a whole number from 0 to 100,000,000";
    expect(errorsOf(withFigure({ value, qualifier: "exact" }))).toEqual([
      { path: "data.figures.killed.value", message: rule },
    ]);
    expect(errorsOf(withFigure({ min: 0, max: value }))).toEqual([
      { path: "data.figures.killed.max", message: rule },
    ]);
  });

  it("given the most a figure holds, then it is a count; given no value, then it is required", () => {
    expect(errorsOf(withFigure({ value: 100_000_000, qualifier: "exact" }))).toEqual([]);
    expect(errorsOf(withFigure({ min: 0, max: 100_000_000 }))).toEqual([]);
    expect(errorsOf(withFigure({ qualifier: "exact" }))).toEqual([
      { path: "data.figures.killed.value", message: "is required" },
    ]);
  });

  it("given min equal to max, then it is a valid range", () => {
    expect(errorsOf(withFigure({ min: 26, max: 26 }))).toEqual([]);
  });

  it("given no figures, then at least one is required", () => {
    expect(errorsOf(edit(copy("CasualtiesReported"), "data.figures", {}))).toEqual([
      { path: "data.figures", message: "at least one figure is required" },
    ]);
  });

  it.each(["Killed", "children_killed", "9lives"])(
    "given the category %j, then the key is refused",
    (key) => {
      const body = edit(copy("CasualtiesReported"), "data.figures", {
        [key]: { value: 1, qualifier: "exact" },
      });
      expect(pathsOf(body)).toEqual([`data.figures.${key}`]);
    },
  );

  it("given a category beyond the well-known ones (camelCase), then it is allowed", () => {
    const body = edit(copy("CasualtiesReported"), "data.figures", {
      buried: { value: 67, qualifier: "about" },
    });
    expect(errorsOf(body)).toEqual([]);
  });
});

describe("ids", () => {
  it.each([
    ["kramator", true],
    ["a".repeat(64), true],
    ["Kramatorsk_opened-01", true],
    ["kramato", false],
    ["a".repeat(65), false],
    ["kramatorsk opened", false],
    ["kramatorsk.opened", false],
  ])("given the eventId %j, then valid is %s", (eventId, ok) => {
    expect(EventId.safeParse(eventId).success).toBe(ok);
    const errors = errorsOf({ ...copy("StatementMade"), eventId });
    expect(errors.map((e) => e.path)).toEqual(ok ? [] : ["eventId"]);
  });

  it("given a targetEventId that is not an eventId, then data.targetEventId is named", () => {
    expect(pathsOf(edit(copy("ReportRetracted"), "data.targetEventId", "short"))).toEqual([
      "data.targetEventId",
    ]);
  });

  it.each([
    ["kramatorsk-station-2022-04-08", true],
    ["abc", true],
    ["a".repeat(96), true],
    ["ab", false],
    ["a".repeat(97), false],
    ["Kramatorsk", false],
    ["kramatorsk_station", false],
    ["kramatorsk/station", false],
  ])("given the incidentId %j, then valid is %s", (incidentId, ok) => {
    expect(IncidentId.safeParse(incidentId).success).toBe(ok);
  });
});

describe("the body of an append", () => {
  it.each([null, "text", 42, [valid.StatementMade]])("given %j, then the body is named", (body) => {
    expect(pathsOf(body)).toEqual(["(body)"]);
  });

  it("given a batch of 1 and of 25, then all events parse in order", () => {
    expect(MAX_BATCH).toBe(25);
    const events = Array.from({ length: 25 }, (_, i) => ({
      ...copy("StatementMade"),
      eventId: `statement-${i}`,
    }));
    const one = parseAppendBody({ events: events.slice(0, 1) });
    const all = parseAppendBody({ events });
    expect(one.ok && one.value.length).toBe(1);
    expect(one.ok && one.batched).toBe(true);
    expect(all.ok && all.value.map((e) => e.eventId)).toEqual(events.map((e) => e.eventId));
  });

  it.each([0, 26])("given a batch of %i events, then `events` holds 1–25", (n) => {
    const events = Array.from({ length: n }, () => copy("StatementMade"));
    expect(errorsOf({ events })).toEqual([{ path: "events", message: "a batch holds 1–25 events" }]);
  });

  it("given a batch with another field beside events, then it is named", () => {
    expect(pathsOf({ events: [copy("StatementMade")], ifMatch: 3 })).toEqual(["ifMatch"]);
  });

  it("given bad events in a batch, then each error is prefixed with its index", () => {
    const events = [
      withFigure({ value: -5, qualifier: "exact" }),
      edit(copy("DenialIssued"), "source.publisher"),
      null,
    ];
    events.splice(1, 0, copy("StatementMade"));
    expect(pathsOf({ events })).toEqual([
      "events[0].data.figures.killed.value",
      "events[2].source.publisher",
      "events[3]",
    ]);
  });

  it("given an unknown type in a batch, then events[i].type is named", () => {
    expect(
      pathsOf({ events: [copy("StatementMade"), { ...copy("StatementMade"), type: "Gossip" }] }),
    ).toEqual(["events[1].type"]);
  });

  it("given two events of a batch with the same eventId, then the repeat is named", () => {
    const a = { ...copy("StatementMade"), eventId: "kramatorsk-guterres" };
    const b = { ...copy("DenialIssued"), eventId: "kramatorsk-peskov" };
    const errors = errorsOf({ events: [a, b, { ...a, data: { quote: "other", stance: "neutral" } }] });
    expect(errors).toEqual([{ path: "events[2].eventId", message: "repeats the eventId of events[0]" }]);
  });

  it("given the same events with distinct eventIds, then there is no complaint", () => {
    const a = { ...copy("StatementMade"), eventId: "kramatorsk-guterres" };
    expect(errorsOf({ events: [a, { ...a, eventId: "kramatorsk-guterres-2" }] })).toEqual([]);
  });
});

describe("parseEnvelope on its own", () => {
  it("given a prefix, then paths are prefixed", () => {
    const result = parseEnvelope(edit(copy("StatementMade"), "data.quote"), ["events", 4]);
    expect(result).toEqual({
      ok: false,
      errors: [expect.objectContaining({ path: "events[4].data.quote" })],
    });
  });
});
