import type { FC } from "hono/jsx";
import { describeFigure } from "../../../events/figures.js";
import type { Bbox } from "../../../events/finding/search-doc.js";
import type { SourceRecord } from "../../../events/finding/source-record.js";
import type { Figure } from "../../../events/schemas.js";
import { BboxField } from "./bbox-field.js";
import { categoryLabel, isolate, viewPath } from "./format.js";
import { Layout } from "./layout.js";
import { Place } from "./place.js";
import { type MapPoint, WorldMap } from "./world-map.js";

/** Who said it, and where it was published (a publisher's page lists what others said in it). */
const SaidBy: FC<{ speaker: string; publisher?: string | undefined }> = ({ speaker, publisher }) => (
  <>
    <bdi>{speaker}</bdi>
    {publisher ? ", in " : ""}
    {publisher ? <bdi>{publisher}</bdi> : null}
  </>
);

/** A sub-resource of `SourceRecord.more` in words: its list, a category's by its label. */
function moreLabel(href: string): string {
  const category = /\/casualties\/([^/]+)\/sources$/.exec(href)?.[1];
  if (category) return `every source of ${categoryLabel(decodeURIComponent(category))}`;
  return href.endsWith("/denials") ? "every denial" : "every statement";
}

const Record: FC<{ record: SourceRecord }> = ({ record: r }) => (
  <li>
    <article class="card" data-incident={r.incidentId}>
      <h2>
        <a href={viewPath(r.incidentId)}>
          <bdi>{r.title ?? r.incidentId}</bdi>
        </a>
      </h2>
      <p class="muted">
        <Place location={r.location} unknown="unknown place" />
        {r.occurred ? ` · ${r.occurred}` : ""}
      </p>
      {r.figures.length > 0 ? (
        <>
          <h3>Figures</h3>
          <ul>
            {r.figures.map((f) => (
              <li data-event={f.eventId}>
                {`${categoryLabel(f.category)}: ${describeFigure(f.figure as Figure)} — `}
                <bdi>{f.speaker}</bdi>
                {", in "}
                <bdi>{f.publisher}</bdi>
                {f.assessments.length > 0
                  ? ` — assessed ${f.assessments.length}×, latest: ${f.assessments.at(-1)?.verdict}`
                  : ""}
              </li>
            ))}
          </ul>
        </>
      ) : null}
      {r.statements.length > 0 ? (
        <>
          <h3>Statements</h3>
          <ul>
            {r.statements.map((s) => (
              <li data-event={s.eventId}>
                {`${s.stance}: “`}
                <bdi>{s.quote}</bdi>
                {"” — "}
                <SaidBy speaker={s.speaker} publisher={s.publisher} />
                {s.assessments.length > 0
                  ? ` — assessed ${s.assessments.length}×, latest: ${(s.assessments.at(-1) as { verdict?: string }).verdict ?? "?"}`
                  : ""}
              </li>
            ))}
          </ul>
        </>
      ) : null}
      {r.denials.length > 0 ? (
        <>
          <h3>Denials</h3>
          <ul>
            {r.denials.map((d) => (
              <li data-event={d.eventId}>
                {"Denied "}
                <bdi>{d.claim}</bdi>
                {" — "}
                <SaidBy speaker={d.speaker} publisher={d.publisher} />
                {` — ${d.status}`}
                {d.assessments.length > 0 ? ` after ${d.assessments.length} assessment(s)` : ""}
              </li>
            ))}
          </ul>
        </>
      ) : null}
      {r.assessed.length > 0 ? (
        <p class="muted">{`Assessed ${r.assessed.length} claim(s) of others here.`}</p>
      ) : null}
      {r.figures.length + r.statements.length + r.denials.length + r.assessed.length === 0 ? (
        <p class="muted">
          {
            "Named in reports of this incident that its summary does not list (it shows the latest statements and figures): see "
          }
          <a href={viewPath(r.incidentId)}>its timeline</a>.
        </p>
      ) : null}
      {r.more.length > 0 ? (
        <p class="muted" data-more="">
          {"This incident has more rows than its summary lists, and this source may be named among them: "}
          {r.more.map((href, i) => (
            <>
              {i > 0 ? " · " : ""}
              <a href={href}>{moreLabel(href)}</a>
            </>
          ))}
          {" (JSON)."}
        </p>
      ) : null}
    </article>
  </li>
);

export const SourcePageView: FC<{ name: string; records: SourceRecord[]; nextHref: string | null }> = ({
  name,
  records,
  nextHref,
}) => (
  <Layout title={`${isolate(name)} · Sources · Incident ledger`}>
    <h1>
      {"Source: "}
      <bdi>{name}</bdi>
    </h1>
    <p>
      Every incident where this source or speaker is named, newest first, with the figures, statements and
      denials it gave there and how they were assessed. The same data as{" "}
      <a href={`/sources/${encodeURIComponent(name)}`}>/sources/…</a> in JSON.
    </p>
    <ul class="cards">
      {records.map((r) => (
        <Record record={r} />
      ))}
    </ul>
    {nextHref ? (
      <p class="pager">
        <a href={nextHref} rel="next">
          More incidents →
        </a>
      </p>
    ) : null}
  </Layout>
);

/** The list's filters the map's form does not show, kept so that sending it keeps them. */
const keptFilters = (values: Record<string, string>): [string, string][] =>
  Object.entries(values).filter(([name]) => name !== "q" && name !== "bbox");

export const MapPageView: FC<{
  points: MapPoint[];
  bbox?: Bbox;
  listHref: string;
  /** More incidents match than the map draws: it draws the newest, or with words the best matches. */
  more: "newest" | "best" | null;
  errors: Record<string, string>;
  /** The filters as asked (trimmed, non-empty): words and box in the form, the rest kept with it. */
  values: Record<string, string>;
}> = ({ points, bbox, listHref, more, errors, values }) => (
  <Layout title="Map · Incident ledger">
    <h1>Map of incidents</h1>
    <p>
      Incidents with coordinates, drawn on the server from Natural Earth boundaries. Each mark links to its
      incident; the filters of the <a href={listHref}>list</a> apply here too.
    </p>
    {Object.entries(errors).map(([name, message]) => (
      <p class="hint error" role="alert" data-field={name}>
        {message}
      </p>
    ))}
    <form class="filters" method="get" action="/map">
      <div class="field">
        <label for="map-q">Words</label>
        <input id="map-q" name="q" value={values.q ?? ""} autocomplete="off" />
      </div>
      <BboxField id="map-bbox" label="Box" value={values.bbox} />
      {keptFilters(values).map(([name, value]) => (
        <input type="hidden" name={name} value={value} />
      ))}
      <button type="submit">Show</button>
    </form>
    {keptFilters(values).length > 0 ? (
      <p class="muted" data-kept-filters>
        {"Also filtered by "}
        {keptFilters(values).map(([name, value], i) => (
          <>
            {i > 0 ? ", " : ""}
            {name} <bdi>{value}</bdi>
          </>
        ))}
        {"; change them in the "}
        <a href={listHref}>list</a>.
      </p>
    ) : null}
    <figure>
      <WorldMap points={points} {...(bbox ? { bbox } : {})} />
      <figcaption class="muted">
        {more
          ? `The ${points.length} ${more === "best" ? "best matches" : "most recent"} of the incidents that match; more match (narrow the box or the filters, or see them all in the `
          : `${points.length} incident(s) shown`}
        {more ? <a href={listHref}>list</a> : null}
        {more ? ")" : ""}. Incidents without coordinates are in the list only. Red marks are contested; marks
        that share a place are set around it.
      </figcaption>
    </figure>
    <h2>The incidents on this map</h2>
    <ul>
      {points.map((p) => (
        <li>
          <a href={viewPath(p.incidentId)}>
            <bdi>{p.title}</bdi>
          </a>
          {` (${p.lat.toFixed(2)}, ${p.lon.toFixed(2)})`}
        </li>
      ))}
    </ul>
  </Layout>
);
