import * as z from "zod/mini";
import en from "zod/v4/locales/en.js";

/**
 * The shapes a client may post. These schemas are the single source for validation,
 * for the OpenAPI document and for the types of the domain.
 *
 * Written with zod/mini: the same validation as classic zod at a thirtieth of its bundle size,
 * which the API Lambda's cold start pays for on every new instance.
 */
z.config(en());
// "is required" says more than zod's "expected string, received undefined" for a missing field.
z.config({
  customError: (issue) =>
    issue.code === "invalid_type" && issue.input === undefined ? "is required" : undefined,
});

export const MAX_BATCH = 25;

/** The incident-id rule, one place for the API, the listing, the stream handler and the pages. */
export const INCIDENT_ID_PATTERN = /^[a-z0-9-]{3,96}$/;
export const INCIDENT_ID_RULE = "must be 3–96 characters of a-z, 0-9 and -";
/** The kind-slug rule of `IncidentOpened.data.kind`, also what the listing's `kind` filter accepts. */
export const KIND_SLUG_PATTERN = /^[a-z][a-z0-9-]{1,63}$/;
export const KIND_SLUG_RULE = "must be a lowercase slug, e.g. missile-strike";

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

const isoInstant = z.iso.datetime({ offset: true }).check(z.describe("ISO 8601 date-time with offset"));
const isoDate = z.iso.date().check(z.describe("ISO 8601 date"));
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
const count = z.int().check(z.gte(0, "must be a non-negative integer"), z.lte(100_000_000));
const opt = z.optional;

export const Source = z
  .strictObject({
    publisher: text(300),
    url: opt(
      z.url({ protocol: /^https?$/ }).check(
        z.maxLength(2000),
        z.refine(wellFormed, WELL_FORMED),
        // The document's portable subset of what the server's URL parser takes (it also takes
        // IDN hosts, IP literals, user info): a host whose last label starts with a letter.
        z.meta({
          pattern: "^https?://(?:[A-Za-z0-9-]+\\.)*[A-Za-z][A-Za-z0-9-]*(?::[0-9]{1,4})?(?:[/?#]\\S*)?$",
        }),
      ),
    ),
    publishedAt: opt(z.union([isoInstant, isoDate])),
    title: opt(text(500)),
  })
  .check(z.meta({ id: "Source", description: "Where the report was published: provenance." }));

export const Attribution = z
  .strictObject({
    name: text(300),
    role: opt(text(300)),
    side: opt(text(100)),
  })
  .check(z.meta({ id: "Attribution", description: "Who said it." }));

const figureText = opt(text(500).check(z.describe("The words as reported, e.g. “many dozens”.")));

export const Figure = z
  .union([
    z.strictObject({
      value: count,
      qualifier: z.enum(["exact", "at-least", "at-most", "about"]),
      text: figureText,
    }),
    z.strictObject({ min: count, max: count, text: figureText }).check(
      z.refine((f) => f.min <= f.max, { message: "min must not exceed max", path: ["min"] }),
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
  .check(z.regex(/^[a-z][A-Za-z]{0,63}$/, "categories are camelCase words: [a-z][A-Za-z]*"));

export const Location = z
  .strictObject({
    name: text(300),
    region: opt(text(300)),
    country: z
      .string()
      .check(
        z.regex(/^[A-Z]{2}$/, "must be an ISO 3166-1 alpha-2 code in capitals, e.g. UA"),
        z.meta({ example: "UA" }),
      ),
    lat: opt(z.number().check(z.gte(-90), z.lte(90))),
    lon: opt(z.number().check(z.gte(-180), z.lte(180))),
  })
  .check(z.meta({ id: "Location" }));

export const IncidentOpenedData = z
  .strictObject({
    title: text(500),
    kind: z.string().check(z.regex(KIND_SLUG_PATTERN, KIND_SLUG_RULE)),
    location: Location,
    occurredAt: opt(isoInstant),
    occurredOn: opt(isoDate),
    description: opt(text(20_000)),
  })
  .check(
    z.refine((d) => !(d.occurredAt && d.occurredOn), {
      message: "give occurredAt or occurredOn, not both",
      path: ["occurredOn"],
    }),
    z.meta({
      id: "IncidentOpenedData",
      description: "occurredAt (an instant) or occurredOn (a day), not both.",
      not: { properties: { occurredAt: {}, occurredOn: {} }, required: ["occurredAt", "occurredOn"] },
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
  importedFrom: opt(ImportedFrom),
};
const attributed = { ...common, attributedTo: Attribution };

export const IncidentOpened = z
  .strictObject({
    ...common,
    type: z.literal("IncidentOpened"),
    attributedTo: opt(Attribution),
    data: IncidentOpenedData,
  })
  .check(z.meta({ id: "IncidentOpened" }));
export const CasualtiesReported = z
  .strictObject({
    ...attributed,
    type: z.literal("CasualtiesReported"),
    data: CasualtiesReportedData,
  })
  .check(z.meta({ id: "CasualtiesReported" }));
export const StatementMade = z
  .strictObject({
    ...attributed,
    type: z.literal("StatementMade"),
    data: StatementMadeData,
  })
  .check(z.meta({ id: "StatementMade" }));
export const DenialIssued = z
  .strictObject({
    ...attributed,
    type: z.literal("DenialIssued"),
    data: DenialIssuedData,
  })
  .check(z.meta({ id: "DenialIssued" }));
export const ClaimAssessed = z
  .strictObject({
    ...attributed,
    type: z.literal("ClaimAssessed"),
    data: ClaimAssessedData,
  })
  .check(z.meta({ id: "ClaimAssessed" }));
export const ReportRetracted = z
  .strictObject({
    ...attributed,
    type: z.literal("ReportRetracted"),
    data: ReportRetractedData,
  })
  .check(z.meta({ id: "ReportRetracted" }));

export const EVENT_TYPES = [
  "IncidentOpened",
  "CasualtiesReported",
  "StatementMade",
  "DenialIssued",
  "ClaimAssessed",
  "ReportRetracted",
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export const Envelope = z
  .discriminatedUnion("type", [
    IncidentOpened,
    CasualtiesReported,
    StatementMade,
    DenialIssued,
    ClaimAssessed,
    ReportRetracted,
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
