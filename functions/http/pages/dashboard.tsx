import { type Context, Hono } from "hono";
import { html } from "hono/html";
import type { JSX } from "hono/jsx/jsx-runtime";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { IncidentId } from "../../../events/schemas.js";
import type { StoredEvent } from "../../../events/stored-event.js";
import { type IncidentReader, summaryAt } from "../../incident-reader.js";
import type { LogStore } from "../../log/log-store.js";
import type { EventStore } from "../../store/event-store.js";
import { decodeCursor, encodeCursor } from "../../store/list-cursor.js";
import { type Moment, versionHref } from "./as-known-at.js";
import { DASHBOARD_CSP } from "./dashboard-styles.js";
import { formatInstant, viewPath } from "./format.js";
import { IncidentListPage, type ListFilters } from "./incident-list-page.js";
import { IncidentPage } from "./incident-page.js";
import { MessagePage } from "./layout.js";
import { readLogView } from "./log-panel.js";

export interface DashboardDeps {
  reader: IncidentReader;
  events: EventStore;
  /** The citation line of an incident by the latest release (functions/export); none: no line. */
  citation?: (
    incident: { incidentId: string; title: string | null; version: number },
    origin: string,
  ) => Promise<string | null>;
  /** The transparency log: each event's leaf index and proof links, the latest checkpoint. */
  logStore?: LogStore;
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
export function dashboardRoutes({ reader, events, citation, logStore }: DashboardDeps): Hono {
  const app = new Hono();

  app.get("/", async (c) => {
    const { filters, values, errors, cursor } = readListQuery(c);
    if (Object.keys(errors).length > 0) {
      return render(
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
    const page = await reader.list({ limit: PAGE_SIZE, ...filters, ...(cursor ? { cursor } : {}) });
    const nextHref = page.next
      ? `/?${new URLSearchParams({ ...values, cursor: encodeCursor(page.next) })}`
      : null;
    const kinds = [
      ...new Set([...KNOWN_KINDS, ...page.items.flatMap((s) => (s.kind ? [s.kind] : []))]),
    ].sort();
    return render(
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
      return render(
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

    // One fresh read of every stored event serves the timeline, the chart, the version links,
    // the chain check and any past view; a current page starts from the projected view.
    const [{ events: all, check }, projected, log] = await Promise.all([
      events.readVerified(incidentId),
      moment.at === "current" ? reader.summary(incidentId, moment) : Promise.resolve(null),
      logStore ? readLogView(logStore, incidentId) : Promise.resolve(undefined),
    ]);
    if (all.length === 0) return notFound(c, incidentId);
    const latest = all.length;
    // The view may lag the events just read: then fold them, so chart and summary agree.
    const summary =
      moment.at === "current"
        ? projected && projected.version >= latest
          ? projected
          : summaryAt(incidentId, all, { at: "version", version: latest })
        : summaryAt(incidentId, all, moment);
    if (!summary) return notAtThatMoment(c, incidentId, moment, all);

    const shown = summary.version;
    const cite = citation ? await citation({ ...summary, version: latest }, new URL(c.req.url).origin) : null;
    return render(
      c,
      200,
      <IncidentPage
        summary={summary}
        events={all.filter((e) => e.version <= shown)}
        marks={all.map(({ version, recordedAt, type }) => ({ version, recordedAt, type }))}
        check={check}
        moment={moment}
        citation={cite}
        log={log}
      />,
    );
  });

  return app;
}

/** Every page goes out through here: a doctype, and headers that forbid script and foreign assets. */
async function render(c: Context, status: ContentfulStatusCode, page: JSX.Element): Promise<Response> {
  c.header("Content-Security-Policy", DASHBOARD_CSP);
  c.header("X-Content-Type-Options", "nosniff");
  c.header("Referrer-Policy", "no-referrer");
  c.header("Cache-Control", "no-cache");
  return c.html(await html`<!doctype html>${page}`, status);
}

function notFound(c: Context, incidentId: string): Promise<Response> {
  return render(
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
  all: StoredEvent[],
): Promise<Response> {
  const first = all[0] as StoredEvent;
  return render(
    c,
    404,
    <MessagePage title="Not known at that moment">
      <p>
        {moment.at === "version"
          ? `Incident ${incidentId} has versions 1 to ${all.length}, not ${moment.version}.`
          : `Nothing about incident ${incidentId} had been recorded by ${formatInstant(moment.at === "asOf" ? moment.asOf : null)}: its first event was recorded at ${formatInstant(first.recordedAt)}.`}
      </p>
      <p>
        <a href={versionHref(incidentId, 1)}>See it as first recorded</a> or{" "}
        <a href={viewPath(incidentId)}>as it is now</a>.
      </p>
    </MessagePage>,
  );
}

/** A form leaves empty fields in the query: those mean "no filter", not an error. */
function param(c: Context, name: string): string | undefined {
  const raw = c.req.query(name)?.trim();
  return raw ? raw : undefined;
}

function readListQuery(c: Context) {
  const values: Record<string, string> = {};
  const errors: Record<string, string> = {};
  const filters: ListFilters = {};
  const kind = param(c, "kind");
  const country = param(c, "country");
  const contested = param(c, "contested");
  if (kind !== undefined) {
    values.kind = kind;
    if (/^[a-z][a-z0-9-]{0,63}$/.test(kind)) filters.kind = kind;
    else errors.kind = "Kind must be a lowercase slug such as missile-strike or mass-grave.";
  }
  if (country !== undefined) {
    values.country = country;
    if (/^[A-Za-z]{2}$/.test(country)) filters.country = country.toUpperCase();
    else errors.country = "Country must be a two-letter ISO 3166 code such as UA.";
  }
  if (contested !== undefined) {
    values.contested = contested;
    if (contested === "true" || contested === "false") filters.contested = contested === "true";
    else errors.contested = "Contested must be any, contested only, or not contested.";
  }
  const rawCursor = param(c, "cursor");
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
  const asOf = param(c, "asOf");
  const version = param(c, "version");
  if (asOf !== undefined && version !== undefined) return "Give a moment or a version, not both.";
  if (version !== undefined) {
    if (!/^\d{1,15}$/.test(version) || Number(version) < 1)
      return `Version must be a whole number from 1, not “${version}”.`;
    return { at: "version", version: Number(version) };
  }
  if (asOf !== undefined) {
    const match = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})?$/i.exec(asOf);
    const time = match ? Date.parse(match[3] ? asOf : `${asOf}Z`) : Number.NaN;
    if (Number.isNaN(time))
      return `“${asOf}” is not a date and time; use the picker, or e.g. 2022-04-08T12:00:00Z.`;
    return { at: "asOf", asOf: new Date(time).toISOString() };
  }
  return { at: "current" };
}
