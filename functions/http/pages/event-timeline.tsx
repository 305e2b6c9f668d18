import type { FC } from "hono/jsx";
import type { JSX } from "hono/jsx/jsx-runtime";
import { detailsOf } from "../../../events/editorial.js";
import { describeFigure } from "../../../events/figures.js";
import { EDITOR_TYPES, type Figure } from "../../../events/schemas.js";
import type { StoredEvent } from "../../../events/stored-event.js";
import { versionHref } from "./as-known-at.js";
import { VerdictTag } from "./claims-sections.js";
import { categoryLabel, formatInstant, occurredText, safeHref, typeLabel, viewPath } from "./format.js";
import { EventLogLine, type LogView } from "./log-panel.js";
import { Speaker } from "./speaker.js";

/**
 * The events of the view, a page at a time and newest first, with their provenance: who published it, who it is
 * attributed to, when it happened (if said) and when the archive recorded it. Retracted
 * events stay, struck through, because the archive never forgets what was reported.
 */

/** Events per page of the timeline, newest first; older pages and the JSON are linked (page weight). */
export const TIMELINE_PAGE = 50;

export const EventBody: FC<{ event: StoredEvent }> = ({ event: e }) => {
  const d = e.data;
  switch (e.type) {
    case "IncidentOpened":
      return (
        <p class="ev-body">
          <bdi>{d.title}</bdi> ({d.kind}) at <bdi>{d.location.name}</bdi>, {d.location.country}
        </p>
      );
    case "CasualtiesReported":
      return (
        <p class="ev-body">
          {Object.entries(d.figures as Record<string, Figure>).map(([c, f], i) => (
            <>
              {`${i > 0 ? "; " : ""}${categoryLabel(c)}: ${describeFigure(f)}`}
              {f.text ? (
                <>
                  {" (“"}
                  <bdi>{f.text}</bdi>
                  {"”)"}
                </>
              ) : null}
            </>
          ))}
        </p>
      );
    case "StatementMade":
      return (
        <div class="ev-body">
          <blockquote class="quote" dir="auto">
            {d.quote}
          </blockquote>
          <p>
            {`Stance: ${d.stance}`}
            {d.accuses ? ", accuses " : ""}
            {d.accuses ? <bdi>{d.accuses}</bdi> : null}
            {d.channel ? ", via " : ""}
            {d.channel ? <bdi>{d.channel}</bdi> : null}
          </p>
        </div>
      );
    case "DenialIssued":
      return (
        <div class="ev-body">
          <p>
            Denies <bdi>{d.claim}</bdi>
            {d.counterClaim ? ". Counter-claim: " : ""}
            {d.counterClaim ? <bdi>{d.counterClaim}</bdi> : null}
          </p>
          {d.quote ? (
            <blockquote class="quote" dir="auto">
              {d.quote}
            </blockquote>
          ) : null}
        </div>
      );
    case "ClaimAssessed":
      return (
        <p class="ev-body">
          <VerdictTag verdict={d.verdict} /> <a href={`#ev-${d.targetEventId}`}>{d.targetEventId}</a>
          {d.reasoning ? ": " : ""}
          {d.reasoning ? <bdi>{d.reasoning}</bdi> : null}
        </p>
      );
    case "ReportRetracted":
      return (
        <p class="ev-body">
          Retracts <a href={`#ev-${d.targetEventId}`}>{d.targetEventId}</a>
          {": "}
          <bdi>{d.reason}</bdi>
        </p>
      );
    case "EvidenceCaptured":
      return (
        <p class="ev-body">
          {`${d.kind}, ${d.size} bytes (${d.mediaType}): `}
          <a href={`#evidence-${d.sha256}`}>
            <code>{d.sha256}</code>
          </a>
        </p>
      );
    case "IncidentRevised":
      return <RevisedBody data={d} />;
    case "IncidentGraded":
      return (
        <p class="ev-body">
          {`Graded ${d.grade} (the ${d.scale} scale)`}
          <Reasoning text={d.reasoning} />
        </p>
      );
    case "AttributionAssessed":
      return (
        <p class="ev-body">
          {"Attributed to "}
          <bdi>{d.perpetrator.name}</bdi>
          {d.perpetrator.side ? " (" : ""}
          {d.perpetrator.side ? <bdi>{d.perpetrator.side}</bdi> : null}
          {d.perpetrator.side ? ")" : ""}
          {`, ${d.certainty} certainty`}
          <Reasoning text={d.reasoning} />
        </p>
      );
    case "IncidentsLinked":
      return (
        <p class="ev-body">
          {`${d.relation} `}
          <a href={viewPath(d.otherIncidentId)}>{d.otherIncidentId}</a>
        </p>
      );
    case "VictimsRecorded":
      return (
        <p class="ev-body">
          {`${d.victims.length} ${d.victims.length === 1 ? "person" : "people"} listed: see `}
          <a href="#victims">Victims</a>
          {" (a sealed field shows only to a reader who may see it)"}
        </p>
      );
    case "VictimsLinked":
      return (
        <p class="ev-body">
          {`${d.relation} (${d.certainty} certainty): entry ${d.a.index} of `}
          <a href={`#ev-${d.a.eventId}`}>{d.a.eventId}</a>
          {` and entry ${d.b.index} of `}
          <a href={`#ev-${d.b.eventId}`}>{d.b.eventId}</a>
        </p>
      );
    case "RedactionApplied":
      return <RedactionBody data={d} />;
    default:
      return null;
  }
};

const Reasoning: FC<{ text?: string }> = ({ text }) =>
  text ? (
    <>
      {": "}
      <bdi>{text}</bdi>
    </>
  ) : null;

/** A revision: which details it replaced, the short ones with their new value. */
const RevisedBody: FC<{ data: Record<string, unknown> }> = ({ data: d }) => {
  const location = d.location as { name: string; country: string } | undefined;
  const parts: (string | JSX.Element)[] = [];
  const add = (...piece: (string | JSX.Element)[]) => parts.push(parts.length > 0 ? "; " : "", ...piece);
  if (typeof d.title === "string") add("title ", <bdi>{d.title}</bdi>);
  if (typeof d.kind === "string") add(`kind ${d.kind}`);
  if (location) add("place ", <bdi>{location.name}</bdi>, `, ${location.country}`);
  for (const when of ["occurredAt", "occurredOn", "occurredUntil", "timePrecision"] as const)
    if (typeof d[when] === "string") add(`${when} ${d[when]}`);
  if (typeof d.description === "string") add("description rewritten");
  return <p class="ev-body">{["Revised: ", ...parts]}</p>;
};

/** Pointers a redaction lists; the rest are counted. */
const POINTERS_SHOWN = 10;

/** A redaction: what it did, to which fields of which event, and why. Never a value. */
const RedactionBody: FC<{ data: Record<string, unknown> }> = ({ data: d }) => {
  const pointers = d.pointers as string[];
  const more = pointers.length - POINTERS_SHOWN;
  return (
    <p class="ev-body">
      {`${d.effect === "erased" ? "Erased" : "Withheld"} ${pointers.length === 1 ? "one value" : `${pointers.length} values`} of `}
      <a href={`#ev-${d.targetEventId}`}>{String(d.targetEventId)}</a>
      {" ("}
      {pointers.slice(0, POINTERS_SHOWN).map((p, i) => (
        <>
          {i > 0 ? ", " : ""}
          <code>{p}</code>
        </>
      ))}
      {more > 0 ? ` and ${more} more` : ""}
      {`), reason: ${d.reason}`}
      {typeof d.legalBasis === "string" ? "; legal basis: " : ""}
      {typeof d.legalBasis === "string" ? <bdi>{d.legalBasis}</bdi> : null}
      {typeof d.requestRef === "string" ? "; request " : ""}
      {typeof d.requestRef === "string" ? <bdi>{d.requestRef}</bdi> : null}
    </p>
  );
};

/**
 * When the event says it happened, as the page's header writes an incident's time (`occurredText`).
 * An opening's is the incident's own, read as its summary reads it (its data's time or day, else
 * its envelope's time, with its end); a revision that gives a start, the one it gives; any other
 * event, its envelope's `occurredAt`. Null when it says none.
 */
function occurredOf(e: StoredEvent): { datetime: string; text: string } | null {
  let when: { occurredAt?: string | null; occurredOn?: string | null; occurredUntil?: string | null } = {
    occurredAt: e.occurredAt,
  };
  if (e.type === "IncidentOpened") when = detailsOf(e);
  else if (e.type === "IncidentRevised" && (e.data.occurredAt ?? e.data.occurredOn))
    when = {
      occurredAt: e.data.occurredAt,
      occurredOn: e.data.occurredOn,
      occurredUntil: e.data.occurredUntil,
    };
  const datetime = when.occurredAt ?? when.occurredOn;
  const text = occurredText(when);
  return datetime && text ? { datetime, text } : null;
}

const Occurred: FC<{ event: StoredEvent }> = ({ event }) => {
  const when = occurredOf(event);
  return when ? <time datetime={when.datetime}>{when.text}</time> : <>not stated</>;
};

const Source: FC<{ event: StoredEvent }> = ({ event: { source } }) => {
  const href = safeHref(source.url);
  return (
    <>
      {href ? (
        <a href={href} rel="noopener noreferrer nofollow external">
          <bdi>{source.publisher}</bdi>
        </a>
      ) : (
        <bdi>{source.publisher}</bdi>
      )}
      {source.title ? ", “" : ""}
      {source.title ? <bdi>{source.title}</bdi> : null}
      {source.title ? "”" : ""}
      {source.publishedAt ? `, published ${source.publishedAt}` : ""}
    </>
  );
};

const TimelineEvent: FC<{
  event: StoredEvent;
  incidentId: string;
  retracted: boolean;
  retractedBy?: number;
  log?: LogView;
}> = ({ event: e, incidentId, retracted, retractedBy, log }) => (
  <li
    class={retracted ? "event retracted" : "event"}
    id={`ev-${e.eventId}`}
    data-version={e.version}
    data-type={e.type}
  >
    <div class="ev-head">
      <span class="ver">{`v${e.version}`}</span>
      <strong>{typeLabel(e.type)}</strong>
      {retracted ? (
        <span class="tag tag-retracted">{retractedBy ? `retracted by v${retractedBy}` : "retracted"}</span>
      ) : null}
      <a href={versionHref(incidentId, e.version)}>
        as known after this<span class="visually-hidden">{` (version ${e.version})`}</span>
      </a>
    </div>
    <EventBody event={e} />
    <dl class="ev-meta">
      <dt>Source</dt>
      <dd>
        <Source event={e} />
      </dd>
      <dt>Attributed to</dt>
      <dd>
        {e.attributedTo ? (
          <Speaker who={e.attributedTo} link={!EDITOR_TYPES.includes(e.type)} />
        ) : (
          "— (the source itself)"
        )}
      </dd>
      <dt>Occurred</dt>
      <dd>
        <Occurred event={e} />
      </dd>
      <dt>Recorded</dt>
      <dd>
        <time datetime={e.recordedAt}>{formatInstant(e.recordedAt)}</time>
        {" by "}
        <bdi>{e.recordedBy}</bdi>
      </dd>
      <dt>Event id</dt>
      <dd>
        <code>{e.eventId}</code>
        {" · "}
        <a
          href={`/incidents/${encodeURIComponent(incidentId)}/events/${encodeURIComponent(e.eventId)}/bundle`}
          download=""
        >
          proof bundle
        </a>
      </dd>
      {e.evidence ? (
        <>
          <dt>Rests on</dt>
          <dd>
            {e.evidence.map((sha, i) => (
              <>
                {i > 0 ? ", " : ""}
                <a href={`#evidence-${sha}`}>
                  <code>{sha.slice(0, 12)}…</code>
                </a>
              </>
            ))}
          </dd>
        </>
      ) : null}
      {log ? (
        <>
          <dt>In the log</dt>
          <dd>
            <EventLogLine
              incidentId={incidentId}
              eventId={e.eventId}
              index={log.indexes.get(e.version)}
              treeSize={log.checkpoint?.size ?? 0}
            />
          </dd>
        </>
      ) : null}
    </dl>
  </li>
);

/** One page of the timeline: events in version order, and where the neighbouring pages are. */
export interface TimelinePage {
  events: StoredEvent[];
  /** How many events the view has (its version). */
  total: number;
  /** Links to the newer and older pages (null at either end). */
  newerHref: string | null;
  olderHref: string | null;
}

export const EventTimeline: FC<{
  incidentId: string;
  page: TimelinePage;
  retracted: ReadonlySet<string>;
  /** Each event's place in the transparency log, when the page knows it. */
  log?: LogView;
}> = ({ incidentId, page, retracted, log }) => {
  // Which event retracted which, where the retraction is on this page (a past view does not know later ones).
  const retractedBy = new Map<string, number>();
  for (const e of page.events)
    if (e.type === "ReportRetracted" && retracted.has(e.data.targetEventId))
      retractedBy.set(e.data.targetEventId, e.version);
  const newestFirst = [...page.events].reverse();
  const first = page.events[0]?.version;
  const last = page.events[page.events.length - 1]?.version;
  const nav =
    page.newerHref || page.olderHref ? (
      <nav class="timeline-pages" aria-label="Timeline pages">
        {page.newerHref ? (
          <a href={page.newerHref} rel="prev">
            ← newer events
          </a>
        ) : null}
        {page.newerHref && page.olderHref ? " · " : null}
        {page.olderHref ? (
          <a href={page.olderHref} rel="next">
            older events →
          </a>
        ) : null}
      </nav>
    ) : null;
  return (
    <section aria-labelledby="timeline-h" id="timeline">
      <h2 id="timeline-h">{`Timeline (${page.total} events)`}</h2>
      {page.events.length < page.total ? (
        <p>
          {`Newest first: v${last} to v${first} of ${page.total}. All of them as JSON: `}
          <a
            href={`/incidents/${encodeURIComponent(incidentId)}/events?after=${Math.max(0, (first ?? 1) - 1)}`}
          >
            from v{first} on
          </a>
          {" · "}
          <a href={`/incidents/${encodeURIComponent(incidentId)}/events`}>from the start</a>.
        </p>
      ) : null}
      {nav}
      <ol class="timeline" reversed>
        {newestFirst.map((e) => (
          <TimelineEvent
            event={e}
            incidentId={incidentId}
            retracted={retracted.has(e.eventId)}
            retractedBy={retractedBy.get(e.eventId)}
            log={log}
          />
        ))}
      </ol>
      {nav}
    </section>
  );
};
