import type { FC } from "hono/jsx";
import { formatInstant, toDatetimeLocal, viewPath } from "./format.js";

/** Which moment a page shows: now, as known at an instant (`asOf`), or just after one version. */
export type Moment = { at: "current" } | { at: "asOf"; asOf: string } | { at: "version"; version: number };

/** Past this many versions, the quick links keep the first, those around the shown one, and the latest. */
const MAX_VERSION_LINKS = 60;

export const versionHref = (incidentId: string, version: number) =>
  `${viewPath(incidentId)}?version=${version}`;

/**
 * The unmissable marker of a past view, with steps to the neighbouring versions and the way
 * back to the present. `shown` is the version the past view ends at.
 */
export const PastBanner: FC<{
  incidentId: string;
  moment: Moment;
  shown: number;
  shownAt: string | null;
  latest: number;
}> = ({ incidentId, moment, shown, shownAt, latest }) => (
  <aside class="past-banner" aria-label="Past view" data-past-view={shown}>
    <p>
      <strong>
        {moment.at === "asOf"
          ? `Past view: as the archive knew it at ${formatInstant(moment.asOf)}`
          : `Past view: as the archive stood after version ${shown}`}
      </strong>
    </p>
    <p>
      {`Showing version ${shown} of ${latest} (recorded ${formatInstant(shownAt)}). `}
      {shown < latest
        ? `${latest - shown} later event(s) are not shown, and nothing below reflects them.`
        : "Nothing has been recorded since: this is also the current state."}
    </p>
    <p>
      {shown > 1 ? (
        <>
          <a href={versionHref(incidentId, shown - 1)} rel="prev">{`← version ${shown - 1}`}</a>
          {" · "}
        </>
      ) : null}
      {shown < latest ? (
        <>
          <a href={versionHref(incidentId, shown + 1)} rel="next">{`version ${shown + 1} →`}</a>
          {" · "}
        </>
      ) : null}
      <a href={viewPath(incidentId)}>Back to the current view</a>
    </p>
  </aside>
);

/** Which versions get a quick link: all of a short history; of a long one, the first, those around the one shown, and the latest. */
export function linkedVersions(latest: number, shown: number | null): number[] {
  if (latest <= MAX_VERSION_LINKS) return Array.from({ length: latest }, (_, i) => i + 1);
  const picked = new Set<number>();
  const add = (from: number, to: number) => {
    for (let v = Math.max(1, from); v <= Math.min(latest, to); v++) picked.add(v);
  };
  add(1, 10);
  if (shown !== null) add(shown - 10, shown + 10);
  add(latest - 29, latest);
  return [...picked].sort((a, b) => a - b);
}

/** Quick links to every version (or, of a long history, a bounded few: see `linkedVersions`). */
const VersionLinks: FC<{ incidentId: string; latest: number; shown: number | null }> = ({
  incidentId,
  latest,
  shown,
}) => {
  const versions = linkedVersions(latest, shown);
  return (
    <nav aria-label="Versions">
      <ol class="versions">
        {versions.map((v, i) => (
          <>
            {i > 0 && v !== (versions[i - 1] as number) + 1 ? <li aria-hidden="true">…</li> : null}
            <li>
              <a
                href={versionHref(incidentId, v)}
                aria-current={v === shown ? "page" : undefined}
              >{`v${v}`}</a>
            </li>
          </>
        ))}
      </ol>
    </nav>
  );
};

/**
 * "As known at": a plain GET form (works without script), read as UTC because stored times
 * are UTC; step 0.001 s because events recorded a few milliseconds apart must be separable.
 */
export const KnownAtPanel: FC<{
  incidentId: string;
  moment: Moment;
  shownAt: string | null;
  latest: number;
  shown: number | null;
  error?: string;
}> = ({ incidentId, moment, shownAt, latest, shown, error }) => {
  const value = moment.at === "asOf" ? moment.asOf : shownAt;
  return (
    <section class="panel" aria-labelledby="known-at-h">
      <h2 id="known-at-h">As known at</h2>
      <form class="known-at" method="get" action={viewPath(incidentId)}>
        <div class="field">
          <label for="asOf">Date and time (UTC)</label>
          <input
            type="datetime-local"
            id="asOf"
            name="asOf"
            step="0.001"
            value={value ? toDatetimeLocal(value) : ""}
            aria-describedby={error ? "asOf-hint asOf-error" : "asOf-hint"}
            {...(error ? { "aria-invalid": "true" } : {})}
            required
          />
        </div>
        <button type="submit">Show then</button>
        {moment.at === "current" ? null : <a href={viewPath(incidentId)}>Now</a>}
        <p class="hint" id="asOf-hint">
          See this page as the archive knew it at that moment: only events recorded by then count. Or pick a
          version:
        </p>
        {error ? (
          <p class="hint error" id="asOf-error" role="alert">
            {error}
          </p>
        ) : null}
      </form>
      <VersionLinks incidentId={incidentId} latest={latest} shown={shown} />
    </section>
  );
};
