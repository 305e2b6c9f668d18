import type { FC } from "hono/jsx";
import type { EvidenceRow } from "../../../events/evidence.js";
import type { IncidentState } from "../../../events/summary.js";
import { formatInstant, safeHref, typeLabel } from "./format.js";

const bytes = (n: number) =>
  n < 1024 ? `${n} B` : n < 1024 ** 2 ? `${(n / 1024).toFixed(1)} KiB` : `${(n / 1024 ** 2).toFixed(1)} MiB`;

/** Where a capture's bytes and its proof bundle are downloaded from. */
export interface DownloadLinks {
  bytes: (sha256: string) => string;
  bundle: (incidentId: string, eventId: string) => string;
}

/** The API's own downloads: a bearer token's user, or anyone for public bytes. */
export const API_DOWNLOADS: DownloadLinks = {
  bytes: (sha256) => `/evidence/${sha256}`,
  bundle: (incidentId, eventId) =>
    `/incidents/${encodeURIComponent(incidentId)}/events/${encodeURIComponent(eventId)}/bundle`,
};

const Capture: FC<{ incidentId: string; row: EvidenceRow; restricted: DownloadLinks }> = ({
  incidentId,
  row,
  restricted,
}) => {
  const source = safeHref(row.sourceUrl);
  const bytesAt = row.access === "restricted" ? restricted.bytes : API_DOWNLOADS.bytes;
  return (
    <li class="capture" id={`evidence-${row.sha256}`} data-sha256={row.sha256}>
      <p>
        <strong>{row.kind}</strong>
        {row.title ? (
          <>
            {": "}
            <bdi>{row.title}</bdi>
          </>
        ) : null}
        {row.access === "restricted" ? <span class="tag">restricted</span> : null}
      </p>
      <dl class="ev-meta">
        <dt>SHA-256</dt>
        <dd>
          <code>{row.sha256}</code>
        </dd>
        <dt>Size</dt>
        <dd>{`${bytes(row.size)} (${row.size} bytes), ${row.mediaType}`}</dd>
        <dt>Captured from</dt>
        <dd>
          {source ? (
            <a href={source} rel="noopener noreferrer nofollow external">
              <bdi>{row.sourceUrl}</bdi>
            </a>
          ) : (
            <a href={`#ev-${row.eventId}`}>see the event</a>
          )}
        </dd>
        <dt>Captured</dt>
        <dd>
          {row.capturedAt ? (
            <time datetime={row.capturedAt}>{formatInstant(row.capturedAt)}</time>
          ) : (
            "not stated"
          )}
          {row.tool ? (
            <>
              {" with "}
              <bdi>{row.tool}</bdi>
            </>
          ) : null}
          {`; recorded ${formatInstant(row.recordedAt)} as `}
          <a href={`#ev-${row.eventId}`}>{`v${row.version}`}</a>
        </dd>
        <dt>Bytes</dt>
        <dd>
          {row.access === "restricted" ? (
            // No `download` attribute: the answer may be a sign-in page first (the bytes come
            // as an attachment anyway).
            <a href={bytesAt(row.sha256)}>download (restricted readers only)</a>
          ) : (
            <a href={bytesAt(row.sha256)} download="">
              download
            </a>
          )}
          {" · "}
          <a href={API_DOWNLOADS.bundle(incidentId, row.eventId)} download="">
            proof bundle
          </a>
          {/* Anyone's bundle leaves restricted bytes out; the desk's holds them for a restricted-reader. */}
          {row.access === "restricted" && restricted.bundle !== API_DOWNLOADS.bundle ? (
            <>
              {" · "}
              <a href={restricted.bundle(incidentId, row.eventId)}>
                proof bundle with the bytes (restricted readers only)
              </a>
            </>
          ) : null}
        </dd>
        <dt>Reports resting on it</dt>
        <dd>
          {row.citedBy && row.citedBy.length > 0 ? (
            <>
              {row.citedBy.map((r, i) => (
                <>
                  {i > 0 ? ", " : ""}
                  <a href={`#ev-${r.eventId}`}>{`v${r.version} ${typeLabel(r.type as never)}`}</a>
                </>
              ))}
              {(row.cited ?? 0) > row.citedBy.length
                ? ` and ${(row.cited ?? 0) - row.citedBy.length} more`
                : ""}
            </>
          ) : (
            "none yet"
          )}
        </dd>
      </dl>
    </li>
  );
};

/** The incident's captures (the newest 100, newest first), each with where its bytes and proof are. */
export const EvidenceSection: FC<{
  incidentId: string;
  state: IncidentState;
  /** Where restricted bytes and their bundles are downloaded from: the desk's, by session, where there is one. */
  restricted?: DownloadLinks;
}> = ({ incidentId, state, restricted = API_DOWNLOADS }) => {
  const evidence = state.evidence;
  const rows = [...(evidence?.latest ?? [])].reverse();
  return (
    <section aria-labelledby="evidence-h" id="evidence">
      <h2 id="evidence-h">Evidence</h2>
      {rows.length === 0 ? (
        <p>No evidence captured.</p>
      ) : (
        <>
          {evidence && evidence.count > rows.length ? (
            <p class="muted">{`The ${rows.length} latest of ${evidence.count} captures.`}</p>
          ) : null}
          <ul class="captures">
            {rows.map((row) => (
              <Capture incidentId={incidentId} row={row} restricted={restricted} />
            ))}
          </ul>
        </>
      )}
    </section>
  );
};
