import type { Child, FC } from "hono/jsx";
import { ownValue } from "../../../events/own-keys.js";
import type { StoredEvent } from "../../../events/stored-event.js";
import { SUMMARY_LIST_MAX, type Summary } from "../../../events/summarize.js";
import type { IncidentState } from "../../../events/summary.js";
import { KnownAtPanel, type Moment, PastBanner } from "./as-known-at.js";
import { CasualtyCategory } from "./casualty-chart.js";
import { casualtyCharts } from "./chart-model.js";
import { DenialsSection, StatementsSection } from "./claims-sections.js";
import { CodingSection } from "./coding-section.js";
import { EventTimeline, type TimelinePage } from "./event-timeline.js";
import { type DownloadLinks, EvidenceSection } from "./evidence-section.js";
import {
  categoryHeading,
  categoryLabel,
  formatInstant,
  headline,
  isolate,
  occurredText,
  orderCategories,
  typeLabel,
} from "./format.js";
import { IntegrityBadge, type IntegrityReport } from "./integrity-badge.js";
import { Layout } from "./layout.js";
import type { LogView } from "./log-panel.js";
import { useOpenedValues } from "./opened-values.js";
import { PAGE_SOURCE_ROWS, share } from "./page-budget.js";
import { Place } from "./place.js";
import { RestrictedNotice, VictimsSection, type VictimsView } from "./victims-section.js";

export interface IncidentPageProps {
  summary: Summary;
  /** The fold state the summary was made from: the charts draw what it keeps. */
  state: IncidentState;
  /** One page of the events up to `summary.version`. */
  timeline: TimelinePage;
  /** The incident's version now (a past view can step forward to it). */
  latest: number;
  integrity: IntegrityReport;
  moment: Moment;
  /** How to cite the incident by the latest release that holds it (issue 12), if any. */
  citation?: string | null;
  /** The events' places in the transparency log and its latest checkpoint (issue 11), if known. */
  log?: LogView;
  /** The desk's panel for a signed-in writer (its forms), or a sign-in link. */
  desk?: Child;
  /** The victims: counts, and the latest lists with what this reader may see of them. */
  victims?: VictimsView;
  /** Every retracted id (the summary lists only the latest): the charts and timeline mark them. */
  retracted?: ReadonlySet<string>;
  /** Where restricted evidence and its bundles are downloaded from (the desk's, where there is one). */
  restrictedDownloads?: DownloadLinks;
  /** The event a desk form just stored, said at the top. */
  recorded?: StoredEvent;
  /**
   * Each casualty category in one line, without its chart and sources: the page of an incident
   * whose full page would pass PAGE_MAX_BYTES (many categories, long names).
   */
  compact?: boolean;
}

const IncidentHeader: FC<{ summary: Summary }> = ({ summary: s }) => {
  const categories = orderCategories(Object.keys(s.casualties));
  return (
    <header>
      <h1 dir="auto">{s.title ?? s.incidentId}</h1>
      <p class="head-meta">
        <span>{`Kind: ${s.kind ?? "unknown"}`}</span>
        <span>
          Where: <Place location={s.location} unknown="unknown" />
        </span>
        <span>{`When: ${occurredText(s) ?? "not stated"}`}</span>
        {s.contested ? <span class="tag tag-contested">contested</span> : null}
      </p>
      {s.description ? <p dir="auto">{s.description}</p> : null}
      {categories.length ? (
        <p class="headlines" data-headlines="">
          {categories
            .map(
              (c) =>
                `${categoryLabel(c)}: ${headline(ownValue(s.casualties, c) as Summary["casualties"][string])}`,
            )
            .join(" · ")}
        </p>
      ) : null}
    </header>
  );
};

/** The casualties of a page too large to draw them: each category's range, and its sources' link. */
const CompactCasualties: FC<{ summary: Summary; categories: readonly string[] }> = ({
  summary,
  categories,
}) => (
  <>
    <p class="muted" data-compact="">
      This incident's reports are too many and too long to draw on one page: each category's range is listed,
      with every source's report in its JSON.
    </p>
    <ul class="compact-casualties">
      {categories.map((category) => {
        const entry = ownValue(summary.casualties, category) as Summary["casualties"][string];
        return (
          <li data-category={category}>
            {`${categoryHeading(category)}: ${headline(entry)}, from ${entry.sourceCount ?? entry.bySource.length} source(s) · `}
            <a
              href={`/incidents/${encodeURIComponent(summary.incidentId)}/casualties/${encodeURIComponent(category)}/sources`}
            >
              every source (JSON)
            </a>
          </li>
        );
      })}
    </ul>
  </>
);

const Contents: FC = () => (
  <nav class="toc" aria-label="On this page">
    <ul>
      <li>
        <a href="#casualties">Casualties</a>
      </li>
      <li>
        <a href="#coding">Coding</a>
      </li>
      <li>
        <a href="#denials">Denials</a>
      </li>
      <li>
        <a href="#statements">Statements</a>
      </li>
      <li>
        <a href="#evidence">Evidence</a>
      </li>
      <li>
        <a href="#timeline">Timeline</a>
      </li>
    </ul>
  </nav>
);

export const IncidentPage: FC<IncidentPageProps> = ({
  summary,
  state,
  timeline,
  latest,
  integrity,
  moment,
  citation,
  log,
  desk,
  victims,
  retracted = new Set(summary.retractedEventIds),
  restrictedDownloads,
  recorded,
  compact = false,
}) => {
  const past = moment.at !== "current";
  const title = `${isolate(summary.title ?? summary.incidentId)}${past ? ` (as known at v${summary.version})` : ""} · Incident ledger`;
  const charts = casualtyCharts(state, summary, retracted);
  const maxRows = share(PAGE_SOURCE_ROWS, charts.length, SUMMARY_LIST_MAX);
  // Restricted values on this page: victims' entries, or private speakers' names (opened-values.ts).
  const reader = victims?.restrictedReader ?? null;
  const restricted = reader !== null && ((victims?.counts.recorded ?? 0) > 0 || useOpenedValues().size > 0);
  return (
    <Layout title={title} past={past}>
      <p class="crumbs">
        <a href="/">← All incidents</a>
      </p>
      {past ? (
        <PastBanner
          incidentId={summary.incidentId}
          moment={moment}
          shown={summary.version}
          shownAt={summary.lastRecordedAt}
          latest={latest}
        />
      ) : null}
      {recorded ? (
        <div class="notice" role="status" data-recorded={recorded.eventId}>
          <p>
            <strong>Recorded</strong>
            {`: ${typeLabel(recorded.type)}, as version ${recorded.version}. `}
            <a href={`#ev-${recorded.eventId}`}>See it in the timeline</a>.
          </p>
        </div>
      ) : null}
      <IncidentHeader summary={summary} />
      {restricted && reader ? <RestrictedNotice reader={reader} /> : null}
      {citation ? (
        <p class="muted" data-citation="">
          Cite: <bdi>{citation}</bdi>
        </p>
      ) : null}
      {desk ?? null}
      <Contents />
      <div class="tools">
        <KnownAtPanel
          incidentId={summary.incidentId}
          moment={moment}
          shownAt={summary.lastRecordedAt}
          latest={latest}
          shown={past ? summary.version : null}
        />
        <IntegrityBadge
          incidentId={summary.incidentId}
          report={integrity}
          past={past ? { version: summary.version, headHash: summary.headHash } : null}
          log={log}
        />
      </div>
      <section aria-labelledby="casualties-h" id="casualties">
        <h2 id="casualties-h">Casualties</h2>
        {charts.length === 0 ? (
          <p>No casualty figures reported{past ? " by then" : ""}.</p>
        ) : (
          <p class="muted">
            {`By version (v1 … v${summary.version}): each source's reports that moved the summary's range, and its latest one, with the range the summary combines from each source's latest live report. Last change recorded ${formatInstant(summary.lastRecordedAt)}.`}
          </p>
        )}
        {compact ? (
          <CompactCasualties summary={summary} categories={charts.map((c) => c.category)} />
        ) : (
          charts.map((chart) => (
            <CasualtyCategory
              chart={chart}
              lastVersion={summary.version}
              incidentId={summary.incidentId}
              maxRows={maxRows}
            />
          ))
        )}
      </section>
      <CodingSection summary={summary} state={state} />
      {victims ? <VictimsSection view={victims} /> : null}
      <DenialsSection summary={summary} />
      <StatementsSection summary={summary} />
      <EvidenceSection
        incidentId={summary.incidentId}
        state={state}
        {...(restrictedDownloads ? { restricted: restrictedDownloads } : {})}
      />
      <EventTimeline incidentId={summary.incidentId} page={timeline} retracted={retracted} log={log} />
    </Layout>
  );
};
