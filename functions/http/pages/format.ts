import { describeFigure } from "../../../events/figures.js";
import { ownLabel } from "../../../events/own-keys.js";
import type { Attribution, EventType } from "../../../events/schemas.js";
import { WELL_KNOWN_CATEGORIES } from "../../../events/schemas.js";
import { isCommitment } from "../../../events/sealing.js";
import type { CasualtySummary } from "../../../events/summarize.js";
import type { OpenedValues } from "./opened-values.js";

/**
 * Wording shared by the dashboard pages. Everything here returns plain strings: the JSX that
 * prints them escapes them, so nothing here needs to (or may) build HTML.
 */

const NOTHING_OPENED: OpenedValues = new Map();

const CATEGORY_LABELS: Record<string, string> = {
  killed: "killed",
  injured: "injured",
  missing: "missing",
  childrenKilled: "children killed",
  childrenInjured: "children injured",
  present: "people present",
};

/** "childrenKilled" → "children killed"; categories beyond the well-known ones are camelCase words. */
export function categoryLabel(category: string): string {
  return ownLabel(CATEGORY_LABELS, category, (c) => c.replace(/([A-Z])/g, " $1").toLowerCase());
}

/** The label as a heading begins: "Children killed". */
export function categoryHeading(category: string): string {
  const label = categoryLabel(category);
  return `${label.charAt(0).toUpperCase()}${label.slice(1)}`;
}

/** Well-known categories in the contract's order first (killed leads), then the rest by name. */
export function orderCategories(categories: Iterable<string>): string[] {
  const known: readonly string[] = WELL_KNOWN_CATEGORIES;
  const rank = (c: string) => (known.includes(c) ? known.indexOf(c) : known.length);
  return [...categories].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

export const formatCount = (n: number): string => n.toLocaleString("en-US");

/** A combined low–high range in words, as the contract defines it ("at least 50", "24–99"). */
export function describeRange(low: number | null, high: number | null): string {
  if (low === null) return "no live report";
  if (high === null) return `at least ${formatCount(low)}`;
  if (low === high) return formatCount(low);
  if (low === 0) return `at most ${formatCount(high)}`;
  return `${formatCount(low)}–${formatCount(high)}`;
}

/**
 * The headline for one category. With a single source its own wording says more than the
 * range ("about 4,000", "dozens"); with several, only the combined range is honest.
 */
export function headline(summary: CasualtySummary): string {
  const only = summary.bySource.length === 1 ? summary.bySource[0] : undefined;
  return only ? describeFigure(only.figure) : describeRange(summary.low, summary.high);
}

/** Stored times are ISO 8601 UTC with milliseconds; print them readably and keep the precision. */
export function formatInstant(iso: string | null | undefined): string {
  if (!iso) return "—";
  const time = Date.parse(iso);
  if (Number.isNaN(time)) return iso;
  return `${new Date(time).toISOString().replace("T", " ").replace("Z", "")} UTC`;
}

/**
 * When an incident occurred, as written, with the last day it went on where there is one
 * ("2022-02-24 – 2022-05-20"): a list filtered by dates shows why an incident that began before
 * the range is in it. Null when the incident states no time.
 */
export function occurredText(s: {
  occurredAt?: string | null;
  occurredOn?: string | null;
  occurredUntil?: string | null;
}): string | null {
  const began = s.occurredAt ?? s.occurredOn;
  if (!began) return null;
  return s.occurredUntil ? `${began} – ${s.occurredUntil}` : began;
}

/** The value a `datetime-local` input with step 0.001 shows for an instant (read as UTC). */
export function toDatetimeLocal(iso: string): string {
  return new Date(Date.parse(iso)).toISOString().slice(0, 23);
}

/** Who, by name: a private person by their pseudonym (their name is sealed). */
export function sourceName(who: Attribution): string {
  return who.kind === "private" ? attributionParts(who, (text) => text).join("") : who.name;
}

/** Which part of an attribution a piece is: only a public name and a pseudonym name a source page. */
export type AttributionPart = "name" | "role" | "side" | "pseudonym" | "sealed";

/**
 * An attribution's wording with each part the client sent (name, role, side, pseudonym) passed
 * through `piece`, so that a caller can isolate each on its own (a page wraps each in a <bdi>).
 * The words between them are the archive's. A private
 * person is named by their pseudonym, their name and role being sealed; with those too when the
 * reader may see them (`opened`: a restricted-reader's page), marked as restricted.
 */
export function attributionParts<T>(
  who: Attribution,
  piece: (text: string, part: AttributionPart) => T,
  opened: OpenedValues = NOTHING_OPENED,
): (string | T)[] {
  if (who.kind === "private") {
    const pseudonym = who.ref ? ["private source ", piece(who.ref, "pseudonym")] : ["private source"];
    const sealed = (value: unknown) => (isCommitment(value) ? opened.get(value.$sealed) : undefined);
    const name = sealed(who.name);
    if (typeof name !== "string") return pseudonym;
    const role = sealed(who.role);
    return [
      ...pseudonym,
      ": ",
      piece(name, "sealed"),
      ...(typeof role === "string" ? [", ", piece(role, "sealed")] : []),
      " (restricted)",
    ];
  }
  return [
    piece(who.name, "name"),
    ...(who.role ? [", ", piece(who.role, "role")] : []),
    ...(who.side ? [" (", piece(who.side, "side"), ")"] : []),
  ];
}

const TYPE_LABELS: Record<EventType, string> = {
  IncidentOpened: "Incident opened",
  CasualtiesReported: "Casualties reported",
  StatementMade: "Statement made",
  DenialIssued: "Denial issued",
  ClaimAssessed: "Claim assessed",
  ReportRetracted: "Report retracted",
  IncidentRevised: "Incident revised",
  IncidentGraded: "Incident graded",
  AttributionAssessed: "Attribution assessed",
  IncidentsLinked: "Incidents linked",
  VictimsRecorded: "Victims recorded",
  VictimsLinked: "Victims linked",
  RedactionApplied: "Redaction applied",
  EvidenceCaptured: "Evidence captured",
};

export const typeLabel = (type: EventType): string => ownLabel(TYPE_LABELS, type);

/** Only http(s) links are rendered as links: a stored URL must never become a `javascript:` href. */
export function safeHref(url: string | undefined): string | undefined {
  return url && /^https?:\/\//i.test(url) ? url : undefined;
}

/**
 * Client text set inside text only (a document's or an SVG's title, where no <bdi> can go),
 * bidi-isolated with FIRST STRONG ISOLATE … POP DIRECTIONAL ISOLATE.
 */
export const isolate = (text: string): string => `\u2068${text}\u2069`;

/** A sealed value opened for its reader, in words: a list joined, an age range as `min–max`. */
export function sealedValueText(value: unknown): string {
  if (Array.isArray(value)) return value.join("; ");
  if (value && typeof value === "object") {
    const r = value as { min?: number; max?: number };
    return `${r.min}–${r.max}`;
  }
  return String(value);
}

export const viewPath = (incidentId: string): string => `/view/${encodeURIComponent(incidentId)}`;
/** A source's or speaker's page. */
export const sourcePath = (name: string): string => `/source/${encodeURIComponent(name)}`;
