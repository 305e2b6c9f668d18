import type { FC } from "hono/jsx";
import { ownValue } from "../../../events/own-keys.js";
import { GRADES, type Grade } from "../../../events/schemas.js";
import type { Summary } from "../../../events/summarize.js";
import { BboxField } from "./bbox-field.js";
import { categoryLabel, formatInstant, headline, occurredText, orderCategories, viewPath } from "./format.js";
import { Layout } from "./layout.js";
import { Place } from "./place.js";

export interface ListFilters {
  kind?: string;
  country?: string;
  contested?: boolean;
  /** The grade, given or suggested (CONTRACT.md "Coding for research"). */
  grade?: Grade;
}

export interface ListPageProps {
  items: Summary[];
  filters: ListFilters;
  /** Field name → what is wrong with it (the list is not queried then). */
  errors: Record<string, string>;
  /** The raw values to put back in the form, even when they were invalid. */
  values: Record<string, string>;
  nextHref: string | null;
  kinds: string[];
}

/** At most this many categories on a card: the incident page has them all. */
const CARD_FIGURES = 4;

const HeadlineFigures: FC<{ summary: Summary }> = ({ summary }) => {
  const categories = orderCategories(Object.keys(summary.casualties)).slice(0, CARD_FIGURES);
  if (categories.length === 0) return <p class="muted">No casualty figures reported yet.</p>;
  return (
    <dl class="figures">
      {categories.map((c) => (
        <>
          <dt>{categoryLabel(c)}</dt>
          <dd data-headline={c}>
            {headline(ownValue(summary.casualties, c) as Summary["casualties"][string])}
          </dd>
        </>
      ))}
    </dl>
  );
};

const IncidentCard: FC<{ summary: Summary }> = ({ summary: s }) => {
  return (
    <li>
      <article class="card" data-incident={s.incidentId} aria-labelledby={`card-${s.incidentId}`}>
        <h2 id={`card-${s.incidentId}`}>
          <a href={viewPath(s.incidentId)}>
            <bdi>{s.title ?? s.incidentId}</bdi>
          </a>
        </h2>
        <p class="muted">
          {s.kind ?? "unknown kind"} · <Place location={s.location} unknown="unknown place" />
          {occurredText(s) ? ` · ${occurredText(s)}` : ""}
        </p>
        {s.contested ? (
          <p>
            <span class="tag tag-contested">{`contested: ${s.denialCount ?? s.denials.length} denial(s)`}</span>
          </p>
        ) : null}
        <HeadlineFigures summary={s} />
        <p class="muted">
          {"Latest activity: "}
          <time datetime={s.lastRecordedAt ?? ""}>{formatInstant(s.lastRecordedAt)}</time>
          {` · ${s.version} event(s) · ${s.statements.count} statement(s)`}
        </p>
      </article>
    </li>
  );
};

const FilterForm: FC<{ values: Record<string, string>; errors: Record<string, string>; kinds: string[] }> = ({
  values,
  errors,
  kinds,
}) => {
  // Each invalid field names its message, so a screen reader hears why it was refused.
  const invalid = (name: string) =>
    errors[name] ? { "aria-invalid": "true", "aria-describedby": `${name}-error` } : {};
  return (
    <search aria-label="Filter incidents">
      <form class="filters" method="get" action="/">
        <div class="field">
          <label for="q">Search</label>
          <input
            id="q"
            name="q"
            type="search"
            value={values.q ?? ""}
            placeholder="words in titles, places, quotes, names"
            maxlength={500}
            autocomplete="off"
            {...invalid("q")}
          />
        </div>
        <div class="field">
          <label for="from">Occurred from</label>
          <input id="from" name="from" type="date" value={values.from ?? ""} {...invalid("from")} />
        </div>
        <div class="field">
          <label for="to">to</label>
          <input id="to" name="to" type="date" value={values.to ?? ""} {...invalid("to")} />
        </div>
        <div class="field">
          <label for="source">Source or speaker</label>
          <input
            id="source"
            name="source"
            value={values.source ?? ""}
            maxlength={300}
            autocomplete="off"
            {...invalid("source")}
          />
        </div>
        <BboxField id="bbox" label="Map box" value={values.bbox} invalid={invalid("bbox")} />
        <div class="field">
          <label for="kind">Kind</label>
          <input
            id="kind"
            name="kind"
            list="kinds"
            value={values.kind ?? ""}
            placeholder="any kind"
            autocomplete="off"
            {...invalid("kind")}
          />
          <datalist id="kinds">
            {kinds.map((k) => (
              <option value={k} />
            ))}
          </datalist>
        </div>
        <div class="field">
          <label for="country">Country (ISO code)</label>
          <input
            id="country"
            name="country"
            value={values.country ?? ""}
            placeholder="e.g. UA"
            maxlength={2}
            size={6}
            autocomplete="off"
            {...invalid("country")}
          />
        </div>
        <div class="field">
          <label for="contested">Contested</label>
          <select id="contested" name="contested" {...invalid("contested")}>
            <option value="" selected={!values.contested}>
              any
            </option>
            <option value="true" selected={values.contested === "true"}>
              contested (a denial on record)
            </option>
            <option value="false" selected={values.contested === "false"}>
              not contested
            </option>
          </select>
        </div>
        <div class="field">
          <label for="grade">Grade</label>
          <select id="grade" name="grade" {...invalid("grade")}>
            <option value="" selected={!values.grade}>
              any
            </option>
            {GRADES.map((g) => (
              <option value={g} selected={values.grade === g}>
                {g}
              </option>
            ))}
          </select>
        </div>
        <button type="submit">Filter</button>
        <a href="/">Clear filters</a>
        <a href={`/map${mapQuery(values)}`}>Show on the map</a>
        {Object.entries(errors).map(([name, message]) => (
          <p class="hint error" id={`${name}-error`} role="alert">
            {message}
          </p>
        ))}
      </form>
    </search>
  );
};

/** The list's filters, for the same view on the map. */
function mapQuery(values: Record<string, string>): string {
  const kept = Object.entries(values).filter(([k, v]) => k !== "cursor" && v !== "");
  return kept.length > 0 ? `?${new URLSearchParams(kept)}` : "";
}

function describeFilters(f: ListFilters): string {
  const parts = [
    f.kind ? `kind ${f.kind}` : "",
    f.country ? `country ${f.country}` : "",
    f.contested === undefined ? "" : f.contested ? "contested" : "not contested",
    f.grade ? `grade ${f.grade}` : "",
  ].filter(Boolean);
  return parts.length ? ` matching ${parts.join(", ")}` : "";
}

export const IncidentListPage: FC<ListPageProps> = (props) => {
  const filtered = describeFilters(props.filters);
  return (
    <Layout title="Incidents · Incident ledger">
      <h1>Incidents</h1>
      <p>
        Reports about each incident — casualty figures, statements, denials and assessments — as the archive
        recorded them, newest activity first.
      </p>
      <p class="muted" data-exports="">
        {"Download every incident: "}
        <a href="/export/incidents.csv" download="">
          incidents.csv
        </a>
        {" (one row per incident) · "}
        <a href="/export/events.ndjson" download="">
          events.ndjson
        </a>
        {" (every event) · citable "}
        <a href="/releases">releases</a>
        {" · "}
        <a href="/feed">change feed</a>
        {". Columns are described in the "}
        <a href="/codebook">codebook</a>
        {"."}
      </p>
      <FilterForm values={props.values} errors={props.errors} kinds={props.kinds} />
      {Object.keys(props.errors).length ? null : (
        <>
          <p id="result-count">
            {props.items.length === 0
              ? `No incidents${filtered}.`
              : `${props.items.length}${props.nextHref ? "+" : ""} incident(s)${filtered}.`}
            {props.items.length === 0 && !filtered ? " Load the sample with `npm run sample`." : ""}
          </p>
          <ul class="cards" aria-labelledby="result-count">
            {props.items.map((s) => (
              <IncidentCard summary={s} />
            ))}
          </ul>
          {props.nextHref ? (
            <p class="pager">
              <a href={props.nextHref} rel="next">
                Older activity →
              </a>
            </p>
          ) : null}
        </>
      )}
    </Layout>
  );
};
