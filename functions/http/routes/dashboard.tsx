import { type Context, Hono } from "hono";
import type { Child } from "hono/jsx";
import { withIncoming } from "../../../events/links.js";
import { IncidentId } from "../../../events/schemas.js";
import {
  type ChainCheck,
  reachesRecorded,
  type StoredEvent,
  verifyChain,
} from "../../../events/stored-event.js";
import { type Summary, utf8Length } from "../../../events/summarize.js";
import type { IncidentState } from "../../../events/summary.js";
import type { SearchIndex } from "../../finding/search-index.js";
import type { IncidentReader } from "../../incident-reader.js";
import type { LogStore } from "../../log/log-store.js";
import type { DisclosureReader } from "../../people/disclosure-reader.js";
import { type ReaderAuthenticator, readerOf } from "../../people/people-routes.js";
import { openPrivateSpeakers } from "../../people/private-speakers.js";
import { UnreadableCommitError } from "../../store/commit-item.js";
import type { EventStore } from "../../store/event-store.js";
import { decodeCursor, encodeCursor } from "../../store/list-cursor.js";
import type { ViewStore } from "../../store/view-store.js";
import { hasRole, type Principal } from "../auth.js";
import { hasSessionCookie } from "../desk/session.js";
import { encodeSearchCursor, hasFinding } from "../finding-params.js";
import { parseInstant } from "../instant.js";
import { type Moment, versionHref } from "../pages/as-known-at.js";
import { TIMELINE_PAGE } from "../pages/event-timeline.js";
import type { DownloadLinks } from "../pages/evidence-section.js";
import { formatInstant, viewPath } from "../pages/format.js";
import { IncidentListPage } from "../pages/incident-list-page.js";
import { IncidentPage } from "../pages/incident-page.js";
import type { IntegrityReport } from "../pages/integrity-badge.js";
import { MessagePage } from "../pages/layout.js";
import { type LogView, readCheckpointView } from "../pages/log-panel.js";
import { OpenedValuesContext } from "../pages/opened-values.js";
import { PAGE_MAX_BYTES, TIMELINE_BYTES } from "../pages/page-budget.js";
import { renderPage, renderPageWithin } from "../pages/render-page.js";
import type { VictimsView } from "../pages/victims-section.js";
import { findIncidents } from "./finding.js";
import { findingValues, readFindingForm } from "./finding-pages.js";
import { pageParam, readPageFilters } from "./page-filters.js";

export interface DashboardDeps {
  reader: IncidentReader;
  events: EventStore;
  views: ViewStore;
  /** The citation line of an incident by the latest release (functions/export); none: no line. */
  citation?: (incident: {
    incidentId: string;
    title: string | null;
    version: number;
  }) => Promise<string | null>;
  /** The transparency log: each event's leaf index and proof links, the latest checkpoint. */
  logStore?: LogStore;
  /** The desk's panel on an incident page (functions/http/desk): its forms, or a sign-in link. */
  deskPanel?: (c: Context, incidentId: string, events: readonly StoredEvent[]) => Promise<Child>;
  /** The victims' disclosures (functions/people), and who reads: restricted ones for a restricted-reader. */
  disclosures?: DisclosureReader;
  readerAuth?: ReaderAuthenticator;
  /** The desk's signed-in person (functions/http/desk), a reader as a bearer token's user is; null: none. */
  deskReader?: (c: Context) => Promise<Principal | null>;
  /** Where the desk serves restricted evidence and its bundles to its signed-in person. */
  deskDownloads?: DownloadLinks;
  /** The finding index: the list's words, dates, source and box (functions/finding). */
  finding?: SearchIndex;
}

const PAGE_SIZE = 20;
/** Offered in the kind field besides the kinds on the page (the contract's examples). */
const KNOWN_KINDS = ["missile-strike", "mass-grave", "shelling"];

/**
 * The dashboard: server-rendered HTML over the same stores as the JSON API, at `/` (the
 * list) and `/view/{incidentId}` (one incident). `/incidents/{id}` stays the JSON summary;
 * these paths do not overlap with any API route. Bad input in a form is answered with a
 * page that says what to fix, not with problem+json: a person is reading.
 */
export function dashboardRoutes({
  reader,
  events,
  views,
  citation,
  logStore,
  deskPanel,
  disclosures,
  readerAuth,
  deskReader,
  deskDownloads,
  finding,
}: DashboardDeps): Hono {
  const app = new Hono();

  // Pages read the parameters they know and ignore the rest, where the API refuses them: a link
  // a person shares comes back with a tracker's (`fbclid`, `utm_source`), and must still open.
  app.get("/", async (c) => {
    const { filters, values, errors, cursor } = readListQuery(c);
    // Words, dates, a source or a box: the finding index answers, with its own cursor.
    const found = finding ? readFindingForm(c) : null;
    if (found) {
      Object.assign(values, findingValues(c));
      Object.assign(errors, found.errors);
      if (errors.cursor && hasFinding(found.params)) delete errors.cursor;
    }
    if (finding && found && hasFinding(found.params) && Object.keys(errors).length === 0) {
      // A whole page: a card is a few lines, whatever the size of the summary it was read from.
      const page = await findIncidents(
        { finding, reader },
        {
          ...found.params,
          ...filters,
          limit: PAGE_SIZE,
          ...(values.cursor ? { cursor: values.cursor } : {}),
        },
      );
      const { cursor: _c, ...rest } = values;
      const nextHref = page.next
        ? `/?${new URLSearchParams({ ...rest, cursor: encodeSearchCursor(page.next, page.scope) })}`
        : null;
      return renderPage(
        c,
        200,
        <IncidentListPage
          items={page.items}
          filters={filters}
          values={rest}
          errors={{}}
          nextHref={nextHref}
          kinds={KNOWN_KINDS}
        />,
      );
    }
    if (Object.keys(errors).length > 0) {
      return renderPage(
        c,
        400,
        <IncidentListPage
          items={[]}
          filters={filters}
          values={values}
          errors={errors}
          nextHref={null}
          kinds={KNOWN_KINDS}
        />,
      );
    }
    const { grade, ...listed } = filters;
    const page = await reader.list(
      { limit: PAGE_SIZE, ...listed, ...(cursor ? { cursor } : {}) },
      grade ? { grade } : {},
    );
    const nextHref = page.next
      ? `/?${new URLSearchParams({ ...values, cursor: encodeCursor(page.next) })}`
      : null;
    const kinds = [
      ...new Set([...KNOWN_KINDS, ...page.items.flatMap((s) => (s.kind ? [s.kind] : []))]),
    ].sort();
    return renderPage(
      c,
      200,
      <IncidentListPage
        items={page.items}
        filters={filters}
        values={values}
        errors={{}}
        nextHref={nextHref}
        kinds={kinds}
      />,
    );
  });

  app.get("/view/:incidentId", async (c) => {
    const incidentId = c.req.param("incidentId");
    if (!IncidentId.safeParse(incidentId).success) return notFound(c, incidentId);
    const moment = readMoment(c);
    if (typeof moment === "string") {
      return renderPage(
        c,
        400,
        <MessagePage title="That moment cannot be read">
          <p>{moment}</p>
          <p>
            <a href={viewPath(incidentId)}>See the incident as it is now</a>
          </p>
        </MessagePage>,
      );
    }

    const before = readBefore(c);
    if (typeof before === "string") {
      return renderPage(
        c,
        400,
        <MessagePage title="That page of the timeline cannot be read">
          <p>{before}</p>
          <p>
            <a href={viewPath(incidentId)}>See the incident as it is now</a>
          </p>
        </MessagePage>,
      );
    }

    // Every read here is bounded: the projected state (or a snapshot and the events after it),
    // one page of the timeline, and the chain since its last full check.
    const [state, head, incoming] = await Promise.all([
      reader.stateAt(incidentId, moment),
      events.readHead(incidentId),
      reader.incomingLinks(incidentId),
    ]);
    if (head.version === 0 && !state) return notFound(c, incidentId);
    if (!state)
      return notAtThatMoment(c, incidentId, moment, head.version, await events.eventAt(incidentId, 1));
    // Links other incidents posted naming this one; a past view shows those recorded by its point.
    const own = await reader.summarize(state);
    const summary = withIncoming(
      own,
      incoming,
      moment.at === "current" ? undefined : (own.lastRecordedAt ?? undefined),
    );
    // A bearer token names the reader when sent (a wrong one is a 401); else the desk's session.
    const who = (readerAuth ? await readerOf(readerAuth, c) : null) ?? (await deskReader?.(c)) ?? null;
    const retracted = await reader.retracted(state);
    const shown = summary.version;
    const latest = Math.max(head.version, shown);
    const end = Math.min(shown, (before ?? shown + 1) - 1);
    const readFrom = Math.max(0, end - TIMELINE_PAGE);
    const [read, integrity, log, cite, victims] = await Promise.all([
      timelineEvents(events, incidentId, readFrom, end),
      integrityReport(events, views, incidentId, latest),
      logStore ? readLogView(logStore, incidentId, { after: readFrom, last: end }) : undefined,
      citation ? citation({ ...summary, version: latest }) : null,
      victimsView(events, disclosures, state, summary, who),
    ]);
    // The newest events of the stretch, as many as fit the page's budget (at least one).
    const pageEvents = withinBytes(read, TIMELINE_BYTES);
    // Where a stored desk form leads (`?recorded=<eventId>`): said at the top, if the page shows it.
    const recordedId = moment.at === "current" ? pageParam(c, "recorded") : undefined;
    const desk = deskPanel && moment.at === "current" ? await deskPanel(c, incidentId, pageEvents) : null;
    const opened = await openPrivateSpeakers(
      events,
      disclosures,
      { incidentId, summary, timeline: pageEvents },
      who,
      "GET /view/{incidentId}",
    );
    // What the page shows depends on who reads it: by session cookie, or by bearer token.
    c.header("Vary", deskPanel ? "Cookie, Authorization" : "Authorization");
    const href = (beforeVersion: number | null) => {
      const query = new URLSearchParams(momentQuery(moment));
      if (beforeVersion !== null && beforeVersion <= shown) query.set("before", String(beforeVersion));
      const text = query.toString();
      return `${viewPath(incidentId)}${text ? `?${text}` : ""}#timeline`;
    };
    /** The page with a timeline of `timelineBytes`, its casualties drawn in full or in one line each. */
    const draft = (timelineBytes: number, compact: boolean) => () => {
      const timeline = withinBytes(pageEvents, timelineBytes);
      const recorded = recordedId === undefined ? undefined : timeline.find((e) => e.eventId === recordedId);
      const startAfter = (timeline[0]?.version ?? end + 1) - 1;
      return (
        <OpenedValuesContext.Provider value={opened}>
          <IncidentPage
            summary={summary}
            state={state}
            timeline={{
              events: timeline,
              total: shown,
              newerHref: end < shown ? href(end + TIMELINE_PAGE + 1) : null,
              olderHref: startAfter > 0 ? href(startAfter + 1) : null,
            }}
            latest={latest}
            integrity={integrity}
            moment={moment}
            citation={cite}
            log={log}
            desk={desk}
            victims={victims}
            retracted={new Set(retracted)}
            compact={compact}
            {...(recorded ? { recorded } : {})}
            {...(deskDownloads ? { restrictedDownloads: deskDownloads } : {})}
          />
        </OpenedValuesContext.Provider>
      );
    };
    // The budgets count rows and events; long text of characters HTML escapes (`&` is five
    // bytes) can still pass the page's bound, so a page that does is drawn again with less.
    const page = await renderPageWithin(
      c,
      200,
      [draft(TIMELINE_BYTES, false), draft(TIMELINE_BYTES / 4, true), draft(0, true)],
      PAGE_MAX_BYTES,
      // A signed-in person's page carries their form token: never in a shared cache. Anyone
      // else's is the public page (Vary: Cookie keeps the two apart).
      deskPanel && hasSessionCookie(c) ? "private, no-cache" : "no-cache",
    );
    // A page that may show restricted values is this reader's alone, never a shared cache's.
    if (who) page.headers.set("Cache-Control", "private, no-store");
    return page;
  });

  return app;
}

/** The victims block of a page: counts, and the latest lists with what this reader may see. */
async function victimsView(
  events: EventStore,
  disclosures: DisclosureReader | undefined,
  state: IncidentState,
  summary: Summary,
  who: Principal | null,
): Promise<VictimsView> {
  const lists = await Promise.all(
    (state.victims?.lists ?? [])
      .filter((l) => l.version <= summary.version)
      .map(async (l) => {
        const event = await events.eventAt(summary.incidentId, l.version);
        if (!event) return null;
        const open = disclosures
          ? await disclosures.ofEvent(event, who, "GET /view/{incidentId}")
          : { items: [], erased: [] };
        return { event, disclosures: open.items, erased: new Set(open.erased) };
      }),
  );
  return {
    counts: summary.victims,
    lists: lists.filter((l) => l !== null),
    restrictedReader: hasRole(who, "restricted-reader") ? (who?.name ?? null) : null,
  };
}

/**
 * The events of a timeline page, newest first in chunks, until the page's byte budget is spent:
 * a page of long events reads little more than it shows.
 */
async function timelineEvents(events: EventStore, incidentId: string, after: number, last: number) {
  const chunks: StoredEvent[][] = [];
  let used = 0;
  for (let to = last; to > after && used <= TIMELINE_BYTES; to -= TIMELINE_CHUNK) {
    const chunk = await events.eventsBetween(incidentId, Math.max(after, to - TIMELINE_CHUNK), to);
    chunks.unshift(chunk);
    for (const e of chunk) used += utf8Length(JSON.stringify(e));
  }
  return chunks.flat();
}
const TIMELINE_CHUNK = 10;

/** The newest of `events` (in version order) whose JSON fits `budget` bytes, at least the newest one. */
function withinBytes(events: readonly StoredEvent[], budget: number): StoredEvent[] {
  let used = 0;
  let from = events.length;
  while (from > 0) {
    used += utf8Length(JSON.stringify(events[from - 1]));
    if (used > budget && from < events.length) break;
    from--;
  }
  return events.slice(from);
}

/** What the page shows of the transparency log: the latest checkpoint and the shown events' leaves. */
async function readLogView(
  log: LogStore,
  incidentId: string,
  range: { after: number; last: number },
): Promise<LogView> {
  const [stored, indexes] = await Promise.all([
    log.latestCheckpoint(),
    log.incidentIndexes(incidentId, range),
  ]);
  return { checkpoint: stored ? readCheckpointView(stored) : null, indexes };
}

function notFound(c: Context, incidentId: string): Promise<Response> {
  return renderPage(
    c,
    404,
    <MessagePage title="No such incident">
      <p>
        The archive has no incident named <code>{incidentId}</code>. Incident names are 3–96 characters of
        a–z, 0–9 and “-”.
      </p>
    </MessagePage>,
  );
}

function notAtThatMoment(
  c: Context,
  incidentId: string,
  moment: Moment,
  latest: number,
  first: StoredEvent | null,
): Promise<Response> {
  return renderPage(
    c,
    404,
    <MessagePage title="Not known at that moment">
      <p>
        {moment.at === "version"
          ? `Incident ${incidentId} has versions 1 to ${latest}, not ${moment.version}.`
          : `Nothing about incident ${incidentId} had been recorded by ${formatInstant(moment.at === "asOf" ? moment.asOf : null)}: its first event was recorded at ${formatInstant(first?.recordedAt)}.`}
      </p>
      <p>
        <a href={versionHref(incidentId, 1)}>See it as first recorded</a> or{" "}
        <a href={viewPath(incidentId)}>as it is now</a>.
      </p>
    </MessagePage>,
  );
}

/** How many events the page re-hashes at most: all of a short incident, or those since the last full check. */
const CHECK_ON_VIEW = 100;
/** Far from any full check: how many of the latest links the page checks. */
const LATEST_LINKS = 10;

/**
 * The integrity badge's check, bounded: a short incident is checked whole at every view (a
 * check that moves the record on is recorded); a longer one from the last full check, continuing
 * its hash; one far from any full check gets its latest links checked and a pointer to /verify.
 */
async function integrityReport(
  events: EventStore,
  views: ViewStore,
  incidentId: string,
  latest: number,
): Promise<IntegrityReport> {
  const full = await views.getCheck(incidentId);
  if (full?.ok === false) {
    // A failed full check stands until one passes again: the links since it cannot vouch for
    // the events it found broken.
    const firstBadVersion = full.firstBadVersion ?? 1;
    const check: ChainCheck = {
      ok: false,
      firstBadVersion,
      reason: `the last full re-check, at ${formatInstant(full.checkedAt)}, failed: ${full.reason ?? "the chain does not recompute"}`,
      version: firstBadVersion - 1,
    };
    return { check, since: 0, full: null, partial: false };
  }
  try {
    // A short incident is re-checked whole at every view: an edit to any of its stored events,
    // however old, shows at once (CONTRACT.md "Bounds": never "intact" when a full check fails).
    if (latest <= CHECK_ON_VIEW) {
      // `latest` is the projected summary's version where that is ahead of the stored chain.
      const check = reachesRecorded((await events.readVerified(incidentId)).check, latest);
      const checkedAt = new Date().toISOString();
      if (!check.ok) {
        await views.saveCheck(incidentId, {
          version: latest,
          headHash: "-",
          checkedAt,
          ok: false,
          firstBadVersion: check.firstBadVersion,
          reason: check.reason,
        });
        return { check, since: 0, full: null, partial: false };
      }
      // An unchanged chain keeps the time it was first found so (the page stays the same bytes,
      // and a view writes nothing); a chain that moved on is recorded anew.
      if (full?.version === check.version && full.headHash === check.headHash)
        return { check, since: check.version, full, partial: false, whole: true };
      const record = { version: check.version, headHash: check.headHash, checkedAt };
      await views.saveCheck(incidentId, record);
      return { check, since: check.version, full: record, partial: false, whole: true };
    }
    if (full && full.version <= latest && latest - full.version <= CHECK_ON_VIEW) {
      const since = await events.eventsBetween(incidentId, full.version, latest);
      const check = verifyChain(since, { version: full.version, hash: full.headHash });
      return { check, since: full.version, full, partial: false };
    }
    const from = latest - LATEST_LINKS;
    const tail = await events.eventsBetween(incidentId, from, latest);
    const check = verifyChain(tail, { version: from, hash: tail[0]?.prevHash ?? "" });
    return { check, since: from, full, partial: true };
  } catch (error) {
    if (!(error instanceof UnreadableCommitError)) throw error;
    const check: ChainCheck = {
      ok: false,
      firstBadVersion: error.version,
      reason: `stored item is unreadable: ${error.message}`,
      version: error.version - 1,
    };
    return { check, since: 0, full: null, partial: false };
  }
}

/** The query that names a moment, for links that keep it. */
function momentQuery(moment: Moment): Record<string, string> {
  if (moment.at === "version") return { version: String(moment.version) };
  if (moment.at === "asOf") return { asOf: moment.asOf };
  return {};
}

/** `before=N`: the timeline page of the events before version N. A string answer is an error. */
function readBefore(c: Context): number | undefined | string {
  const raw = pageParam(c, "before");
  if (raw === undefined) return undefined;
  if (!/^\d{1,15}$/.test(raw) || Number(raw) < 2) return `“before” must be a version from 2, not “${raw}”.`;
  return Number(raw);
}

function readListQuery(c: Context) {
  const { filters, values, errors } = readPageFilters(c);
  const rawCursor = pageParam(c, "cursor");
  if (rawCursor !== undefined) values.cursor = rawCursor;
  const cursor = rawCursor === undefined ? undefined : decodeCursor(rawCursor);
  if (cursor === null)
    errors.cursor = "That page link is not one this archive made; start again from the first page.";
  return { filters, values, errors, cursor: cursor ?? undefined };
}

/**
 * `asOf` comes from a datetime-local field ("2022-04-08T10:15:30.5", no zone: read as UTC,
 * as the label says) or from a hand-written URL with a zone. A string answer is an error.
 */
function readMoment(c: Context): Moment | string {
  const asOf = pageParam(c, "asOf");
  const version = pageParam(c, "version");
  if (asOf !== undefined && version !== undefined) return "Give a moment or a version, not both.";
  if (version !== undefined) {
    if (!/^\d{1,15}$/.test(version) || Number(version) < 1)
      return `Version must be a whole number from 1, not “${version}”.`;
    return { at: "version", version: Number(version) };
  }
  if (asOf !== undefined) {
    const instant = parseInstant(asOf, { zoneless: true });
    if (instant === null)
      return `“${asOf}” is not a date and time; use the picker, or e.g. 2022-04-08T12:00:00Z.`;
    return { at: "asOf", asOf: instant };
  }
  return { at: "current" };
}
