import { z } from "zod";

/**
 * The shapes a client may post. These schemas are the single source for validation,
 * for the OpenAPI document and for the types of the domain.
 */

export const MAX_BATCH = 25;

export const IncidentId = z
  .string()
  .regex(/^[a-z0-9-]{3,96}$/, "must be 3–96 characters of a-z, 0-9 and -")
  .meta({ id: "IncidentId", example: "kramatorsk-station-2022-04-08" });

export const EventId = z
  .string()
  .regex(/^[A-Za-z0-9_-]{8,64}$/, "must be 8–64 characters of A-Z, a-z, 0-9, _ and -")
  .meta({ id: "EventId" });

const isoInstant = z.iso.datetime({ offset: true }).describe("ISO 8601 date-time with offset");
const isoDate = z.iso.date().describe("ISO 8601 date");
/** RFC 8785 (the hash) has no form for a lone UTF-16 surrogate: refuse it here, not at sealing. */
const wellFormed = (s: string) => !/[\uD800-\uDFFF]/u.test(s);
const WELL_FORMED = "must be well-formed Unicode (no lone surrogates)";
const text = (max: number) =>
  z.string().trim().min(1, "must not be empty").max(max).refine(wellFormed, WELL_FORMED);
const count = z.int().min(0, "must be a non-negative integer").max(100_000_000);

export const Source = z
  .strictObject({
    publisher: text(300),
    url: z
      .url({ protocol: /^https?$/ })
      .max(2000)
      .refine(wellFormed, WELL_FORMED)
      .optional(),
    publishedAt: z.union([isoInstant, isoDate]).optional(),
    title: text(500).optional(),
  })
  .meta({ id: "Source", description: "Where the report was published: provenance." });

export const Attribution = z
  .strictObject({
    name: text(300),
    role: text(300).optional(),
    side: text(100).optional(),
  })
  .meta({ id: "Attribution", description: "Who said it." });

const figureText = text(500).optional().describe("The words as reported, e.g. “many dozens”.");

export const Figure = z
  .union([
    z.strictObject({
      value: count,
      qualifier: z.enum(["exact", "at-least", "at-most", "about"]),
      text: figureText,
    }),
    z
      .strictObject({ min: count, max: count, text: figureText })
      .refine((f) => f.min <= f.max, { message: "min must not exceed max", path: ["min"] }),
    z.strictObject({ qualifier: z.enum(["dozens", "hundreds"]), text: figureText }),
  ])
  .meta({ id: "Figure", description: "A reported number: exact, bounded, approximate or a range." });

export const WELL_KNOWN_CATEGORIES = [
  "killed",
  "injured",
  "missing",
  "childrenKilled",
  "childrenInjured",
  "present",
] as const;

const Category = z.string().regex(/^[a-z][A-Za-z]{0,63}$/, "categories are camelCase words: [a-z][A-Za-z]*");

export const Location = z.strictObject({
  name: text(300),
  region: text(300).optional(),
  country: z
    .string()
    .regex(/^[A-Z]{2}$/, "must be an ISO 3166-1 alpha-2 code in capitals, e.g. UA")
    .meta({ example: "UA" }),
  lat: z.number().min(-90).max(90).optional(),
  lon: z.number().min(-180).max(180).optional(),
});

export const IncidentOpenedData = z
  .strictObject({
    title: text(500),
    kind: z.string().regex(/^[a-z][a-z0-9-]{1,63}$/, "must be a lowercase slug, e.g. missile-strike"),
    location: Location,
    occurredAt: isoInstant.optional(),
    occurredOn: isoDate.optional(),
    description: text(20_000).optional(),
  })
  .refine((d) => !(d.occurredAt && d.occurredOn), {
    message: "give occurredAt or occurredOn, not both",
    path: ["occurredOn"],
  });

export const CasualtiesReportedData = z.strictObject({
  figures: z
    .record(Category, Figure)
    .refine((f) => Object.keys(f).length > 0, "at least one figure is required")
    .refine((f) => Object.keys(f).length <= 50, "at most 50 categories in one report"),
});

export const Stance = z.enum(["condemns", "accuses", "denies", "supports", "neutral"]);

export const StatementMadeData = z.strictObject({
  quote: text(20_000),
  stance: Stance,
  accuses: text(300).optional(),
  channel: text(300).optional(),
});

export const DenialIssuedData = z.strictObject({
  claim: text(2000),
  counterClaim: text(2000).optional(),
  quote: text(20_000).optional(),
});

export const Verdict = z.enum(["supported", "disputed", "false", "unverified"]);

export const ClaimAssessedData = z.strictObject({
  targetEventId: EventId,
  verdict: Verdict,
  reasoning: text(20_000).optional(),
});

export const ReportRetractedData = z.strictObject({
  targetEventId: EventId,
  reason: text(5000),
});

const common = {
  eventId: EventId.optional(),
  occurredAt: isoInstant.optional(),
  source: Source,
};
const attributed = { ...common, attributedTo: Attribution };

export const IncidentOpened = z.strictObject({
  ...common,
  type: z.literal("IncidentOpened"),
  attributedTo: Attribution.optional(),
  data: IncidentOpenedData,
});
export const CasualtiesReported = z.strictObject({
  ...attributed,
  type: z.literal("CasualtiesReported"),
  data: CasualtiesReportedData,
});
export const StatementMade = z.strictObject({
  ...attributed,
  type: z.literal("StatementMade"),
  data: StatementMadeData,
});
export const DenialIssued = z.strictObject({
  ...attributed,
  type: z.literal("DenialIssued"),
  data: DenialIssuedData,
});
export const ClaimAssessed = z.strictObject({
  ...attributed,
  type: z.literal("ClaimAssessed"),
  data: ClaimAssessedData,
});
export const ReportRetracted = z.strictObject({
  ...attributed,
  type: z.literal("ReportRetracted"),
  data: ReportRetractedData,
});

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
  .meta({ id: "EventEnvelope", description: "One report event as a client posts it." });

export const Batch = z
  .strictObject({
    events: z
      .array(z.unknown())
      .min(1, "a batch holds 1–25 events")
      .max(MAX_BATCH, "a batch holds 1–25 events"),
  })
  .meta({ id: "EventBatch" });

export type Figure = z.infer<typeof Figure>;
export type Source = z.infer<typeof Source>;
export type Attribution = z.infer<typeof Attribution>;
export type Envelope = z.infer<typeof Envelope>;
export type Location = z.infer<typeof Location>;
