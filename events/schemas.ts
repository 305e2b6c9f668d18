import * as z from "zod/mini";
import en from "zod/v4/locales/en.js";
import { COUNTRY_CODES, isCountryCode } from "./country-codes.js";

/**
 * The shapes a client may post. These schemas are the single source for validation,
 * for the OpenAPI document and for the types of the domain.
 *
 * Written with zod/mini: the same validation as classic zod at a thirtieth of its bundle size,
 * which the API Lambda's cold start pays for on every new instance.
 */
z.config(en());
// "is required" says more than zod's "expected string, received undefined" for a missing field,
// and a choice is named in the words the other rules use (the type's "must be one of").
z.config({
  customError: (issue) => {
    if ((issue.code === "invalid_type" || issue.code === "invalid_value") && issue.input === undefined)
      return "is required";
    if (issue.code === "invalid_value") return `must be one of ${issue.values.map(String).join(", ")}`;
    // A bound in words a form can show beside its field ("Side must be at most 100 characters").
    if (issue.code === "too_big" || issue.code === "too_small") {
      const most = issue.code === "too_big";
      const bound = Number(most ? issue.maximum : issue.minimum);
      const side = most ? "most" : "least";
      const plural = bound === 1 ? "" : "s";
      if (issue.origin === "string") return `must be at ${side} ${bound} character${plural}`;
      if (issue.origin === "array") return `must have at ${side} ${bound} item${plural}`;
      if (issue.origin === "number") return `must be at ${side} ${bound}`;
    }
    return undefined;
  },
});

export const MAX_BATCH = 25;

/** The incident-id rule, one place for the API, the listing, the stream handler and the pages. */
export const INCIDENT_ID_PATTERN = /^[a-z0-9-]{3,96}$/;
export const INCIDENT_ID_RULE = "must be 3–96 characters of a-z, 0-9 and -";
/** The kind-slug rule of `IncidentOpened.data.kind`, also what the listing's `kind` filter accepts. */
export const KIND_SLUG_PATTERN = /^[a-z][a-z0-9-]{1,63}$/;
export const KIND_SLUG_RULE =
  "must be a lowercase slug of 2–64 characters: a letter, then letters, digits or hyphens, e.g. missile-strike";

export const IncidentId = z
  .string()
  .check(
    z.regex(INCIDENT_ID_PATTERN, INCIDENT_ID_RULE),
    z.meta({ id: "IncidentId", example: "kramatorsk-station-2022-04-08" }),
  );

export const EventId = z
  .string()
  .check(
    z.regex(/^[A-Za-z0-9_-]{8,64}$/, "must be 8–64 characters of A-Z, a-z, 0-9, _ and -"),
    z.meta({ id: "EventId" }),
  );

const HTTP_URL =
  "must be a whole web address starting with http:// or https://, e.g. https://example.org/report";
const INSTANT = "must be a date and time with its zone, e.g. 2022-04-08T09:00:00Z";
const DAY = "must be a real day written YYYY-MM-DD, e.g. 2022-04-08";
const instantSaying = (error: string) =>
  z.iso.datetime({ offset: true, error }).check(z.describe("ISO 8601 date-time with offset"));
const daySaying = (error: string) => z.iso.date({ error }).check(z.describe("ISO 8601 date"));
const isoInstant = instantSaying(INSTANT);
const isoDate = daySaying(DAY);
/** A day or an instant: refused, it says both are taken. */
const DAY_OR_INSTANT = "must be a day (YYYY-MM-DD, e.g. 2022-04-08) or a date and time with its zone";
const dayOrInstant = () => z.union([instantSaying(DAY_OR_INSTANT), daySaying(DAY_OR_INSTANT)]);
/** RFC 8785 (the hash) has no form for a lone UTF-16 surrogate: refuse it here, not at sealing. */
const wellFormed = (s: string) => !/[\uD800-\uDFFF]/u.test(s);
const WELL_FORMED = "must be well-formed Unicode (no lone surrogates)";
/** Control characters other than tab and line breaks hide text from readers of the record. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/;
/**
 * The refinements above, said in JSON Schema for the OpenAPI document (ECMA-262 `\\s` is the
 * same set `trim()` removes): at least one character that is neither white space nor a control
 * character, and no control character anywhere. Lone surrogates cannot be said portably in a
 * pattern; the document says it in words.
 */
const C = "\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\u007F";
export const TEXT_PATTERN = `^[^${C}]*[^\\s${C}][^${C}]*$`;
// Text is stored exactly as posted (never trimmed): an archive does not edit what it was told.
const text = (max: number) =>
  z.string().check(
    z.refine((v) => v.trim().length > 0, "must not be empty or blank"),
    z.maxLength(max),
    z.refine(wellFormed, WELL_FORMED),
    z.refine((v) => !CONTROL.test(v), "must not contain control characters (tab and line breaks are fine)"),
    z.meta({ pattern: TEXT_PATTERN }),
  );
/** What a whole number from `min` to `max` must be, in words (the import says it of its columns too). */
export const wholeNumberRule = (min: number, max: number) =>
  `must be a whole number from ${min.toLocaleString("en")} to ${max.toLocaleString("en")}`;

/**
 * A whole number from `min` to `max`, every way of missing it said in one message in words: a
 * fraction, a number out of range (zod's own safe-integer bound included, never a second
 * message beside this one), a string or null. A missing one "is required", as any field.
 */
function wholeNumber(min: number, max: number) {
  const rule = wholeNumberRule(min, max);
  return z
    .int({ error: (issue) => (issue.input === undefined ? undefined : rule), abort: true })
    .check(z.gte(min, rule), z.lte(max, rule));
}

/** The largest count a figure holds. */
export const MAX_COUNT = 100_000_000;
const count = wholeNumber(0, MAX_COUNT);
const opt = z.optional;

/**
 * A refinement's `when`: it runs whenever the fields it reads (paths within the object it checks)
 * are valid, whatever else fails. zod's default skips it after any other field's type error, and
 * a sender, a desk form above all, would learn of it only after fixing those: every fixable error
 * is named in one answer. A member the object does not know (`unrecognized_keys`) stops nothing;
 * an issue of the object itself stops all.
 */
function whenValid(...paths: readonly (readonly PropertyKey[])[]) {
  const overlaps = (a: readonly PropertyKey[], b: readonly PropertyKey[]) =>
    a.every((key, i) => i >= b.length || b[i] === key);
  return {
    when: (payload: { issues: readonly { code?: string; path?: readonly PropertyKey[] }[] }) =>
      !payload.issues.some(
        (issue) =>
          issue.code !== "unrecognized_keys" &&
          // An issue of the object itself (not one at all, say) stops every refinement of it.
          ((issue.path ?? []).length === 0 || paths.some((path) => overlaps(issue.path ?? [], path))),
      ),
  };
}

export const Source = z
  .strictObject({
    publisher: text(300),
    url: opt(
      z.url({ protocol: /^https?$/, error: HTTP_URL }).check(
        z.maxLength(2000),
        z.refine(wellFormed, WELL_FORMED),
        // The document's portable subset of what the server's URL parser takes (it also takes
        // IDN hosts, IP literals, user info): a host whose last label starts with a letter.
        z.meta({
          pattern: "^https?://(?:[A-Za-z0-9-]+\\.)*[A-Za-z][A-Za-z0-9-]*(?::[0-9]{1,4})?(?:[/?#]\\S*)?$",
        }),
      ),
    ),
    publishedAt: opt(dayOrInstant()),
    title: opt(text(500)),
  })
  .check(z.meta({ id: "Source", description: "Where the report was published: provenance." }));

export const SOURCE_KINDS = ["official", "organisation", "private"] as const;

export const Attribution = z
  .strictObject({
    name: text(300),
    role: opt(text(300)),
    side: opt(text(100)),
    // A private person's name and role are sealed (events/sealing.ts); `ref` keys the source.
    kind: opt(z.enum(SOURCE_KINDS)),
    ref: opt(
      z
        .string()
        .check(z.regex(/^[A-Za-z0-9_.:-]{1,100}$/, "must be 1–100 characters of A-Z, a-z, 0-9, _ . : and -")),
    ),
  })
  .check(
    z.refine((a) => a.kind !== "private" || a.ref !== undefined, {
      message: "is required for a private person (a pseudonym that keys the source)",
      path: ["ref"],
      ...whenValid(["kind"], ["ref"]),
    }),
    z.meta({
      id: "Attribution",
      description:
        "Who said it. kind defaults to official; a private person's name and role are sealed, and ref (required for them) keys the source.",
    }),
  );

const figureText = opt(text(500).check(z.describe("The words as reported, e.g. “many dozens”.")));

export const Figure = z
  .union([
    z.strictObject({
      value: count,
      qualifier: z.enum(["exact", "at-least", "at-most", "about"]),
      text: figureText,
    }),
    z.strictObject({ min: count, max: count, text: figureText }).check(
      z.refine((f) => f.min <= f.max, {
        message: "must not be more than the higher end (max)",
        path: ["min"],
        ...whenValid(["min"], ["max"]),
      }),
      z.meta({ description: "Between min and max; min must not exceed max." }),
    ),
    z.strictObject({ qualifier: z.enum(["dozens", "hundreds"]), text: figureText }),
  ])
  .check(z.meta({ id: "Figure", description: "A reported number: exact, bounded, approximate or a range." }));

export const WELL_KNOWN_CATEGORIES = [
  "killed",
  "injured",
  "missing",
  "childrenKilled",
  "childrenInjured",
  "present",
] as const;

const Category = z
  .string()
  .check(
    z.regex(
      /^[a-z][A-Za-z]{0,63}$/,
      "must be a category of 1–64 letters, in words run together each after the first with a capital, e.g. killed, peopleDisplaced",
    ),
  );

/** How exactly the date and the place are known (docs/reference/codebook.md, "Precision and revision"). */
export const TIME_PRECISIONS = ["day", "days", "week", "month", "year"] as const;
export const LOCATION_PRECISIONS = [
  "exact",
  "near",
  "adm2",
  "adm1",
  "subnational",
  "country",
  "water",
] as const;
export const TimePrecision = z.enum(TIME_PRECISIONS).check(
  z.meta({
    id: "TimePrecision",
    description: "How exactly the date is known: the day, a few days, the week, the month or the year.",
  }),
);
export const LocationPrecision = z.enum(LOCATION_PRECISIONS).check(
  z.meta({
    id: "LocationPrecision",
    description:
      "How exactly the place is known: the spot, near it, its second- or first-level district, somewhere in the country below that, only the country, or at sea.",
  }),
);

export const Location = z
  .strictObject({
    name: text(300),
    region: opt(text(300)),
    country: z.string().check(
      z.regex(/^[A-Z]{2}$/, "must be an ISO 3166-1 alpha-2 code in capitals, e.g. UA"),
      z.refine(
        (code) => !/^[A-Z]{2}$/.test(code) || isCountryCode(code),
        "must be a country's ISO 3166-1 alpha-2 code (or XK, Kosovo), e.g. UA: this code names no country",
      ),
      z.meta({ example: "UA", enum: [...COUNTRY_CODES] }),
    ),
    lat: opt(z.number().check(z.gte(-90), z.lte(90))),
    lon: opt(z.number().check(z.gte(-180), z.lte(180))),
    precision: opt(LocationPrecision),
  })
  .check(
    // A point is a pair: half of one would be written as a coordinate by the exports.
    z.refine((l) => l.lat === undefined || l.lon !== undefined, {
      message: "is required with lat: a point needs both",
      path: ["lon"],
      ...whenValid(["lat"], ["lon"]),
    }),
    z.refine((l) => l.lon === undefined || l.lat !== undefined, {
      message: "is required with lon: a point needs both",
      path: ["lat"],
      ...whenValid(["lat"], ["lon"]),
    }),
    z.meta({ id: "Location", dependentRequired: { lat: ["lon"], lon: ["lat"] } }),
  );

/** `occurredUntil` is an instant or a date; a date runs to the end of its day. */
const occurredUntil = dayOrInstant().check(
  z.describe("When it ended: an instant, or a date (the end of that day); not before the start."),
);

/**
 * Whether `until` ends before `start` begins, as the exports code them (`date_start`, `date_end`:
 * each the day as written, in its own offset): an end written on an earlier day than the start
 * ends before it, and of two instants on days that agree, the earlier ends first. A date runs
 * to the end of its day, so a date and anything on that day agree.
 */
export function endsBeforeStart(start: string | undefined, until: string | undefined): boolean {
  if (!start || !until) return false;
  if (until.slice(0, 10) < start.slice(0, 10)) return true;
  return start.length > 10 && until.length > 10 && Date.parse(until) < Date.parse(start);
}
const UNTIL_BEFORE_START = "must not be before the start (occurredAt or occurredOn)";
const UNTIL_WITHOUT_START = "needs a start: give occurredAt or occurredOn too";

/** When an incident occurred, as its opening and its revisions give it. */
interface When {
  occurredAt?: string | undefined;
  occurredOn?: string | undefined;
  occurredUntil?: string | undefined;
}

/** The rules on when, shared by IncidentOpened and IncidentRevised: one start, and no end before it. */
const WHEN_RULES = [
  z.refine<When>((d) => !(d.occurredAt && d.occurredOn), {
    message: "give occurredAt or occurredOn, not both",
    path: ["occurredOn"],
    ...whenValid(["occurredAt"], ["occurredOn"]),
  }),
  z.refine<When>((d) => !endsBeforeStart(d.occurredAt ?? d.occurredOn, d.occurredUntil), {
    message: UNTIL_BEFORE_START,
    path: ["occurredUntil"],
    ...whenValid(["occurredAt"], ["occurredOn"], ["occurredUntil"]),
  }),
] as const;
/** The same first rule, for the JSON Schema. */
const NOT_BOTH_WHEN = {
  properties: { occurredAt: {}, occurredOn: {} },
  required: ["occurredAt", "occurredOn"],
};

export const IncidentOpenedData = z
  .strictObject({
    title: text(500),
    kind: z.string().check(z.regex(KIND_SLUG_PATTERN, KIND_SLUG_RULE)),
    location: Location,
    occurredAt: opt(isoInstant),
    occurredOn: opt(isoDate),
    occurredUntil: opt(occurredUntil),
    timePrecision: opt(TimePrecision),
    description: opt(text(20_000)),
  })
  .check(
    ...WHEN_RULES,
    z.meta({
      id: "IncidentOpenedData",
      description: "occurredAt (an instant) or occurredOn (a day), not both.",
      not: NOT_BOTH_WHEN,
    }),
  );

export const CasualtiesReportedData = z
  .strictObject({
    figures: z.record(Category, Figure).check(
      z.refine((f) => Object.keys(f).length > 0, "at least one figure is required"),
      z.refine((f) => Object.keys(f).length <= 50, "at most 50 categories in one report"),
      z.meta({
        minProperties: 1,
        maxProperties: 50,
        description: `Category → figure, 1–50 of them. Well-known: ${WELL_KNOWN_CATEGORIES.join(", ")}.`,
      }),
    ),
  })
  .check(z.meta({ id: "CasualtiesReportedData" }));

export const Stance = z
  .enum(["condemns", "accuses", "denies", "supports", "neutral"])
  .check(z.meta({ id: "Stance" }));

export const StatementMadeData = z
  .strictObject({
    quote: text(20_000),
    stance: Stance,
    accuses: opt(text(300)),
    channel: opt(text(300)),
  })
  .check(z.meta({ id: "StatementMadeData" }));

export const DenialIssuedData = z
  .strictObject({
    claim: text(2000),
    counterClaim: opt(text(2000)),
    quote: opt(text(20_000)),
  })
  .check(z.meta({ id: "DenialIssuedData" }));

export const Verdict = z
  .enum(["supported", "disputed", "false", "unverified"])
  .check(z.meta({ id: "Verdict" }));

export const ClaimAssessedData = z
  .strictObject({
    targetEventId: EventId,
    verdict: Verdict,
    reasoning: opt(text(20_000)),
  })
  .check(z.meta({ id: "ClaimAssessedData" }));

export const ReportRetractedData = z
  .strictObject({
    targetEventId: EventId,
    reason: text(5000),
  })
  .check(z.meta({ id: "ReportRetractedData" }));

/** The fields an `IncidentRevised` may correct, each replacing the current value whole. */
export const REVISABLE_FIELDS = [
  "title",
  "kind",
  "location",
  "occurredAt",
  "occurredOn",
  "occurredUntil",
  "timePrecision",
  "description",
] as const;
export type RevisableField = (typeof REVISABLE_FIELDS)[number];

export const IncidentRevisedData = z
  .strictObject({
    title: opt(text(500)),
    kind: opt(z.string().check(z.regex(KIND_SLUG_PATTERN, KIND_SLUG_RULE))),
    location: opt(Location),
    occurredAt: opt(isoInstant),
    occurredOn: opt(isoDate),
    occurredUntil: opt(occurredUntil),
    // null: the date is no longer coded (a precision given in error is withdrawn, not guessed again).
    timePrecision: opt(z.nullable(TimePrecision)),
    description: opt(text(20_000)),
  })
  .check(
    z.refine((d) => REVISABLE_FIELDS.some((f) => d[f] !== undefined), {
      message: `give at least one of ${REVISABLE_FIELDS.join(", ")}`,
      ...whenValid(...REVISABLE_FIELDS.map((field) => [field])),
    }),
    ...WHEN_RULES,
    z.meta({
      id: "IncidentRevisedData",
      description:
        "Editors: corrects the incident's details. Each field given replaces the current value (a location whole); occurredAt replaces an occurredOn and the other way round; timePrecision null withdraws the date's coding. At least one field; not occurredAt and occurredOn both.",
      minProperties: 1,
      not: NOT_BOTH_WHEN,
    }),
  );

/** The ledger's grading scale (docs/reference/codebook.md, "Grades"). */
export const GRADES = ["single-source", "corroborated", "contested", "confirmed", "discounted"] as const;
export type Grade = (typeof GRADES)[number];
export const GradeName = z.enum(GRADES).check(z.meta({ id: "Grade" }));

export const IncidentGradedData = z
  .strictObject({
    scale: z.literal("ledger"),
    grade: GradeName,
    reasoning: opt(text(20_000)),
  })
  .check(z.meta({ id: "IncidentGradedData", description: "Editors: the archive's grade of the incident." }));

export const Certainty = z.enum(["low", "medium", "high"]).check(z.meta({ id: "Certainty" }));

export const AttributionAssessedData = z
  .strictObject({
    perpetrator: z.strictObject({
      name: text(300),
      side: opt(text(100)),
      actorId: opt(text(200)),
    }),
    certainty: Certainty,
    reasoning: opt(text(20_000)),
  })
  .check(
    z.meta({
      id: "AttributionAssessedData",
      description:
        "Editors: who the archive judges carried it out, and how certainly. A later assessment of the same perpetrator (by name) replaces the earlier.",
    }),
  );

export const LINK_RELATIONS = ["duplicate-of", "same-event", "part-of", "related"] as const;
export const IncidentsLinkedData = z
  .strictObject({
    otherIncidentId: IncidentId,
    relation: z.enum(LINK_RELATIONS),
  })
  .check(
    z.meta({
      id: "IncidentsLinkedData",
      description:
        "Editors: links this incident to another existing one (not itself); shown on both. A later link to the same incident replaces the relation; the same link again is refused.",
    }),
  );

export const AGE_GROUPS = ["child", "adult", "elderly", "unknown"] as const;
export const SEXES = ["female", "male", "unknown"] as const;
export const VICTIM_STATUSES = ["civilian", "combatant", "unknown"] as const;
export const MAX_VICTIMS = 500;

const age = wholeNumber(0, 150);
export const Victim = z
  .strictObject({
    name: opt(text(300)),
    nameVariants: opt(z.array(text(300)).check(z.minLength(1), z.maxLength(20))),
    age: opt(age),
    ageRange: opt(
      z.strictObject({ min: age, max: age }).check(
        z.refine((r) => r.min <= r.max, {
          message: "must not be more than the higher end (max)",
          path: ["min"],
          ...whenValid(["min"], ["max"]),
        }),
      ),
    ),
    ageGroup: opt(z.enum(AGE_GROUPS)),
    sex: opt(z.enum(SEXES)),
    status: opt(z.enum(VICTIM_STATUSES)),
    diedOn: opt(isoDate),
    place: opt(text(300)),
    notes: opt(text(5000)),
  })
  .check(
    z.refine((v) => Object.keys(v).length > 0, {
      message: "a victim needs at least one field",
      ...whenValid(),
    }),
    z.refine((v) => !(v.age !== undefined && v.ageRange !== undefined), {
      message: "give age or ageRange, not both",
      path: ["ageRange"],
      ...whenValid(["age"], ["ageRange"]),
    }),
    z.meta({
      id: "Victim",
      minProperties: 1,
      description: "name, nameVariants, age, ageRange, place and notes are sealed; the others are public.",
    }),
  );

export const VictimsRecordedData = z
  .strictObject({
    victims: z
      .array(Victim)
      .check(
        z.minLength(1, `1–${MAX_VICTIMS} victims`),
        z.maxLength(MAX_VICTIMS, `1–${MAX_VICTIMS} victims`),
      ),
    disclose: opt(
      z.record(
        z
          .string()
          .check(
            z.regex(
              /^\/data\/victims\/(0|[1-9][0-9]*)\/[a-zA-Z]+$/,
              "must be the JSON Pointer of a sealed victim field, e.g. /data/victims/0/name",
            ),
          ),
        z.enum(["public", "restricted"]),
      ),
    ),
  })
  .check(
    z.meta({
      id: "VictimsRecordedData",
      description: "disclose: JSON Pointer of a sealed value → public | restricted (default restricted).",
    }),
  );

const VictimRef = z.strictObject({ eventId: EventId, index: z.int().check(z.gte(0), z.lt(MAX_VICTIMS)) });
export const VictimsLinkedData = z
  .strictObject({
    a: VictimRef,
    b: VictimRef,
    relation: z.enum(["same-person", "not-same-person"]),
    certainty: z.enum(["low", "medium", "high"]),
  })
  .check(
    z.refine((d) => !(d.a.eventId === d.b.eventId && d.a.index === d.b.index), {
      message: "links an entry to itself",
      path: ["b"],
      ...whenValid(["a"], ["b"]),
    }),
    z.meta({ id: "VictimsLinkedData" }),
  );

export const REDACTION_REASONS = [
  "safety-risk",
  "data-subject-request",
  "court-order",
  "consent-withdrawn",
  "minor",
  "recording-error",
] as const;
export const RedactionAppliedData = z
  .strictObject({
    targetEventId: EventId,
    pointers: z
      .array(z.string().check(z.regex(/^(\/[^/]*)+$/, "must be a JSON Pointer (RFC 6901)"), z.maxLength(200)))
      .check(z.minLength(1), z.maxLength(3000)),
    effect: z.enum(["withheld", "erased"]),
    reason: z.enum(REDACTION_REASONS),
    legalBasis: opt(text(2000)),
    requestRef: opt(text(300)),
  })
  .check(z.meta({ id: "RedactionAppliedData", description: "Names pointers, never values." }));

export const EVIDENCE_KINDS = ["web-page", "image", "video", "audio", "document", "post", "archive"] as const;
export const Sha256Hex = z
  .string()
  .check(
    z.regex(/^[0-9a-f]{64}$/, "must be 64 lowercase hex digits (a SHA-256)"),
    z.meta({ id: "Sha256Hex" }),
  );
const httpUrl = z
  .url({ protocol: /^https?$/, error: HTTP_URL })
  .check(z.maxLength(2000), z.refine(wellFormed, WELL_FORMED));

export const EvidenceCapturedData = z
  .strictObject({
    sha256: Sha256Hex,
    size: z.int().check(z.gte(1, "must be at least 1 byte"), z.lte(Number.MAX_SAFE_INTEGER)),
    mediaType: z
      .string()
      .check(
        z.regex(
          /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}(\s*;.*)?$/,
          "must be a media type: type/subtype",
        ),
        z.maxLength(255),
      ),
    kind: z.enum(EVIDENCE_KINDS),
    sourceUrl: opt(httpUrl),
    capturedAt: opt(isoInstant),
    capturedBy: opt(z.strictObject({ tool: text(200), version: opt(text(100)) })),
    container: opt(
      z.strictObject({
        format: z.enum(["warc", "wacz"]),
        payloadDigest: opt(
          z
            .string()
            .check(
              z.regex(/^sha(1|256|512):[A-Za-z0-9+/=]+$/, "must be <algorithm>:<digest>, e.g. sha256:…"),
              z.maxLength(200),
            ),
        ),
      }),
    ),
    archives: opt(
      z
        .array(z.strictObject({ service: text(200), url: httpUrl, capturedAt: opt(isoInstant) }))
        .check(z.maxLength(50)),
    ),
    title: opt(text(500)),
    access: opt(z.enum(["public", "restricted"])),
  })
  .check(
    z.meta({ id: "EvidenceCapturedData", description: "Bytes the archive holds, named by their SHA-256." }),
  );

/** The evidence a report rests on: captures of the same incident, by SHA-256. */
const EvidenceList = z.array(Sha256Hex).check(
  z.minLength(1),
  z.maxLength(100),
  // A report rests on a piece of evidence or not: naming it twice would count it twice.
  z.refine((list) => new Set(list).size === list.length, "names the same evidence twice"),
  z.meta({
    description: "SHA-256s of EvidenceCaptured events of this incident, each once.",
    uniqueItems: true,
  }),
);

/** Where an imported event was first recorded: that archive's log origin, its log index and chain hash. */
export const ImportedFrom = z
  .strictObject({
    origin: text(300),
    index: z.int().check(z.gte(0, "must be a non-negative integer")),
    hash: z.string().check(z.regex(/^[0-9a-f]{64}$/, "must be 64 lowercase hex digits")),
  })
  .check(
    z.meta({ id: "ImportedFrom", description: "The record this event was imported from (npm run import)." }),
  );

const common = {
  eventId: opt(EventId),
  occurredAt: opt(isoInstant),
  source: Source,
  evidence: opt(EvidenceList),
  importedFrom: opt(ImportedFrom),
};
const attributed = { ...common, attributedTo: Attribution };
/**
 * The archive's own judgements: `attributedTo` is optional (the editor is `recordedBy`; a desk
 * may still name itself), `source.publisher` still required (provenance on every event).
 */
const editorial = { ...common, attributedTo: opt(Attribution) };

/** One event type's envelope: the fields it shares, its type and its data, named by its type in the OpenAPI. */
function envelopeOf<const Type extends string, Shape extends z.core.$ZodShape, Data extends z.core.SomeType>(
  shared: Shape,
  type: Type,
  data: Data,
) {
  return z.strictObject({ ...shared, type: z.literal(type), data }).check(z.meta({ id: type }));
}

/** What the opening's rules on when read: its own occurredAt and its data's start and end. */
const OPENING_WHEN_VALID = whenValid(
  ["occurredAt"],
  ["data", "occurredAt"],
  ["data", "occurredOn"],
  ["data", "occurredUntil"],
);

export const IncidentOpened = z
  .strictObject({
    ...common,
    type: z.literal("IncidentOpened"),
    attributedTo: opt(Attribution),
    data: IncidentOpenedData,
  })
  .check(
    // Without a start in its data, the opening's own occurredAt is the incident's (editorial.ts).
    z.refine(
      (e) =>
        e.data.occurredAt !== undefined ||
        e.data.occurredOn !== undefined ||
        !endsBeforeStart(e.occurredAt, e.data.occurredUntil),
      {
        message: UNTIL_BEFORE_START,
        path: ["data", "occurredUntil"],
        ...OPENING_WHEN_VALID,
      },
    ),
    // An end needs a start: a span with no beginning codes as no date at all.
    z.refine(
      (e) =>
        e.data.occurredUntil === undefined ||
        (e.data.occurredAt ?? e.data.occurredOn ?? e.occurredAt) !== undefined,
      {
        message: UNTIL_WITHOUT_START,
        path: ["data", "occurredUntil"],
        ...OPENING_WHEN_VALID,
      },
    ),
    z.meta({ id: "IncidentOpened" }),
  );
export const CasualtiesReported = envelopeOf(attributed, "CasualtiesReported", CasualtiesReportedData);
export const StatementMade = envelopeOf(attributed, "StatementMade", StatementMadeData);
export const DenialIssued = envelopeOf(attributed, "DenialIssued", DenialIssuedData);
export const ClaimAssessed = envelopeOf(attributed, "ClaimAssessed", ClaimAssessedData);
export const ReportRetracted = envelopeOf(attributed, "ReportRetracted", ReportRetractedData);

export const IncidentRevised = envelopeOf(editorial, "IncidentRevised", IncidentRevisedData);
export const IncidentGraded = envelopeOf(editorial, "IncidentGraded", IncidentGradedData);
export const AttributionAssessed = envelopeOf(editorial, "AttributionAssessed", AttributionAssessedData);
export const IncidentsLinked = envelopeOf(editorial, "IncidentsLinked", IncidentsLinkedData);
export const VictimsRecorded = envelopeOf(attributed, "VictimsRecorded", VictimsRecordedData);
export const VictimsLinked = envelopeOf(attributed, "VictimsLinked", VictimsLinkedData);
export const RedactionApplied = envelopeOf(attributed, "RedactionApplied", RedactionAppliedData);
export const EvidenceCaptured = z
  .strictObject({
    eventId: opt(EventId),
    occurredAt: opt(isoInstant),
    source: Source,
    importedFrom: opt(ImportedFrom),
    type: z.literal("EvidenceCaptured"),
    attributedTo: opt(Attribution),
    data: EvidenceCapturedData,
  })
  .check(z.meta({ id: "EvidenceCaptured" }));

export const EVENT_TYPES = [
  "IncidentOpened",
  "CasualtiesReported",
  "StatementMade",
  "DenialIssued",
  "ClaimAssessed",
  "ReportRetracted",
  "IncidentRevised",
  "IncidentGraded",
  "AttributionAssessed",
  "IncidentsLinked",
  "VictimsRecorded",
  "VictimsLinked",
  "RedactionApplied",
  "EvidenceCaptured",
] as const;
/** The archive's own judgements: only an editor may post them (CONTRACT.md "Roles"). */
export const EDITOR_TYPES: readonly EventType[] = [
  "RedactionApplied",
  "IncidentRevised",
  "IncidentGraded",
  "AttributionAssessed",
  "IncidentsLinked",
];
export type EventType = (typeof EVENT_TYPES)[number];

export const Envelope = z
  .discriminatedUnion("type", [
    IncidentOpened,
    CasualtiesReported,
    StatementMade,
    DenialIssued,
    ClaimAssessed,
    ReportRetracted,
    IncidentRevised,
    IncidentGraded,
    AttributionAssessed,
    IncidentsLinked,
    VictimsRecorded,
    VictimsLinked,
    RedactionApplied,
    EvidenceCaptured,
  ])
  .check(z.meta({ id: "EventEnvelope", description: "One report event as a client posts it." }));

export const Batch = z
  .strictObject({
    events: z
      .array(z.unknown())
      .check(
        z.minLength(1, "a batch holds 1–25 events"),
        z.maxLength(MAX_BATCH, "a batch holds 1–25 events"),
      ),
  })
  .check(z.meta({ id: "EventBatch" }));

export type Figure = z.infer<typeof Figure>;
export type Source = z.infer<typeof Source>;
export type Attribution = z.infer<typeof Attribution>;
export type Envelope = z.infer<typeof Envelope>;
export type Location = z.infer<typeof Location>;
export type ImportedFrom = z.infer<typeof ImportedFrom>;
