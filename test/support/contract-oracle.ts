// An oracle for summaries, written from CONTRACT.md's words alone ("Summary (the view)") and
// sharing no code with events/: it keeps every event, recomputes everything from scratch, and
// is as slow and plain as can be, so that a bug in the real fold is not a bug here too.
import { expect } from "vitest";
import type { StoredEvent } from "../../events/stored-event.js";
import { summarize } from "../../events/summarize.js";
import { fold } from "../../events/summary.js";

type Json = Record<string, unknown>;

/** The parts of a summary the contract defines, in a form that compares with `toEqual`. */
export interface ContractView {
  incidentId: string;
  version: number;
  headHash: string;
  title: string | null;
  casualties: Record<
    string,
    { low: number | null; high: number | null; latest: string | null; bySource: string[]; reports: number }
  >;
  statements: number;
  denials: { eventId: string; status: string; assessments: string[] }[];
  contested: boolean;
  retractedEventIds: string[];
}

/** The contract's Figure table: a lower bound, and an upper bound or none. */
function bounds(figure: Json): [number, number | null] {
  if (typeof figure.min === "number") return [figure.min, figure.max as number];
  if (figure.qualifier === "dozens") return [24, 99];
  if (figure.qualifier === "hundreds") return [200, 999];
  const value = figure.value as number;
  if (figure.qualifier === "at-least") return [value, null];
  if (figure.qualifier === "at-most") return [0, value];
  return [value, value]; // exact, about
}

/** "The same source when their names are equal after NFC normalisation and whitespace trimming and collapsing." */
const sourceName = (event: StoredEvent): string =>
  (event.attributedTo?.name ?? event.source.publisher).normalize("NFC").trim().replace(/\s+/g, " ");

export function oracleSummary(incidentId: string, events: readonly StoredEvent[]): ContractView {
  const last = events[events.length - 1];
  const retracted: string[] = [];
  for (const e of events) {
    const target = e.type === "ReportRetracted" ? String((e.data as Json).targetEventId) : null;
    if (target && !retracted.includes(target)) retracted.push(target);
  }
  const live = (e: StoredEvent) => !retracted.includes(e.eventId);

  const casualties: ContractView["casualties"] = {};
  const categories = new Set<string>();
  for (const e of events)
    if (e.type === "CasualtiesReported")
      for (const c of Object.keys((e.data as Json).figures as Json)) categories.add(c);
  for (const category of categories) {
    const reports = events.filter(
      (e) => e.type === "CasualtiesReported" && Object.hasOwn((e.data as Json).figures as Json, category),
    );
    const latestBySource = new Map<string, StoredEvent>();
    for (const e of reports.filter(live)) latestBySource.set(sourceName(e), e);
    const rows = [...latestBySource.values()];
    let low: number | null = null;
    let high: number | null = null;
    let open = false;
    for (const e of rows) {
      const [l, h] = bounds(((e.data as Json).figures as Json)[category] as Json);
      low = Math.max(low ?? 0, l);
      if (h === null) open = true;
      else high = Math.max(high ?? 0, h);
    }
    if (open) high = null;
    const newest = rows.reduce<StoredEvent | null>((a, e) => (a && a.version > e.version ? a : e), null);
    casualties[category] = {
      low: rows.length === 0 ? null : low,
      high: rows.length === 0 ? null : high,
      latest: newest?.eventId ?? null,
      bySource: rows.map((e) => e.eventId).sort(),
      reports: reports.length,
    };
  }

  const assessments = events.filter((e) => e.type === "ClaimAssessed" && live(e));
  const denials = events
    .filter((e) => e.type === "DenialIssued" && live(e))
    .map((d) => {
      const mine = assessments.filter((a) => (a.data as Json).targetEventId === d.eventId);
      const newest = mine[mine.length - 1];
      return {
        eventId: d.eventId,
        status: newest ? String((newest.data as Json).verdict) : "unassessed",
        assessments: mine.map((a) => a.eventId),
      };
    });
  const opened = events.find((e) => e.type === "IncidentOpened");
  return {
    incidentId,
    version: last?.version ?? 0,
    headHash: last?.hash ?? "0".repeat(64),
    title: opened ? String((opened.data as Json).title) : null,
    casualties,
    statements: events.filter((e) => e.type === "StatementMade" && live(e)).length,
    denials,
    contested: denials.length > 0,
    retractedEventIds: retracted,
  };
}

/** The same parts read off a summary the archive served or folded. */
export function contractView(summary: Json): ContractView {
  const casualties: ContractView["casualties"] = {};
  for (const [category, c] of Object.entries(summary.casualties as Record<string, Json>)) {
    const latest = c.latest as Json | null;
    casualties[category] = {
      low: c.low as number | null,
      high: c.high as number | null,
      latest: latest ? String(latest.eventId) : null,
      bySource: (c.bySource as Json[]).map((row) => String(row.eventId)).sort(),
      reports: c.reports as number,
    };
  }
  const statements = summary.statements as Json;
  return {
    incidentId: String(summary.incidentId),
    version: summary.version as number,
    headHash: String(summary.headHash),
    title: (summary.title as string | null) ?? null,
    casualties,
    statements: statements.count as number,
    denials: (summary.denials as Json[]).map((d) => ({
      eventId: String(d.eventId),
      status: String(d.status),
      assessments: (d.assessments as Json[]).map((a) => String(a.eventId)),
    })),
    contested: summary.contested as boolean,
    retractedEventIds: summary.retractedEventIds as string[],
  };
}

/**
 * The summary the pure fold gives for these events, as the API sends it — once the oracle has
 * agreed with it on everything the contract defines. What the archive serves must be these bytes.
 */
export function checkedSummaryJson(incidentId: string, events: readonly StoredEvent[]): string {
  const summary = summarize(fold(incidentId, events));
  expect(contractView(summary as unknown as Json)).toEqual(oracleSummary(incidentId, events));
  return JSON.stringify(summary);
}
