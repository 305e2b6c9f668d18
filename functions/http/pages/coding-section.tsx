import type { FC } from "hono/jsx";
import type { FieldChange } from "../../../events/editorial.js";
import type { Summary } from "../../../events/summarize.js";
import type { IncidentState } from "../../../events/summary.js";
import { formatInstant, viewPath } from "./format.js";
import { Speaker } from "./speaker.js";

/**
 * The incident as coded for research (CONTRACT.md "Coding for research"): precision, best
 * estimates, the grade given and suggested, attributions, links both ways, and the history of
 * each revised field. Everything here is bounded by the fold state (events/editorial.ts).
 */

const FIELD_LABELS: Record<string, string> = {
  title: "Title",
  kind: "Kind",
  location: "Place",
  occurredAt: "Time",
  occurredOn: "Day",
  occurredUntil: "Until",
  timePrecision: "Date precision",
  description: "Description",
};

function valueText(value: unknown): string {
  if (value === null || value === undefined) return "(none)";
  if (typeof value === "string") return value;
  const place = value as { name?: string; region?: string; country?: string; precision?: string };
  if (typeof place.name === "string")
    return `${[place.name, place.region, place.country].filter(Boolean).join(", ")}${place.precision ? ` (${place.precision})` : ""}`;
  return JSON.stringify(value);
}

const History: FC<{ field: string; changes: number; recent: FieldChange[] }> = ({
  field,
  changes,
  recent,
}) => (
  <li data-field-history={field}>
    {`${FIELD_LABELS[field] ?? field}: `}
    <ol>
      {recent.map((change) => (
        <li>
          <bdi>{valueText(change.value)}</bdi>
          {` from v${change.version}`}
          {change.version > 1 ? ` (${formatInstant(change.recordedAt)})` : ""}
        </li>
      ))}
    </ol>
    {changes + 1 > recent.length ? (
      <span class="muted">{`${changes + 1 - recent.length} older values not shown`}</span>
    ) : null}
  </li>
);

export const CodingSection: FC<{ summary: Summary; state: IncidentState }> = ({ summary: s, state }) => {
  const history = Object.entries(state.editorial?.history ?? {});
  const killed = Object.hasOwn(s.casualties, "killed") ? s.casualties.killed : undefined;
  return (
    <section aria-labelledby="coding-h" id="coding">
      <h2 id="coding-h">Coding</h2>
      <dl class="coding" data-coding="">
        <dt>Date precision</dt>
        <dd data-time-precision="">{s.timePrecision ?? "not coded"}</dd>
        <dt>Place precision</dt>
        <dd data-location-precision="">{s.location?.precision ?? "not coded"}</dd>
        {s.occurredUntil ? (
          <>
            <dt>Until</dt>
            <dd>{s.occurredUntil}</dd>
          </>
        ) : null}
        <dt>Killed, best estimate</dt>
        <dd data-best="">
          {killed?.best === null || killed?.best === undefined
            ? "none"
            : `${killed.best} (ACLED: ${killed.acled})`}
        </dd>
        <dt>Grade</dt>
        <dd data-grade={s.grade.given?.grade ?? ""} data-suggested-grade={s.grade.suggested}>
          {s.grade.given ? (
            <>
              {`${s.grade.given.grade}, given by `}
              <Speaker who={s.grade.given.attributedTo} link={false} />
              {s.grade.given.reasoning ? (
                <>
                  {": "}
                  <bdi>{s.grade.given.reasoning}</bdi>
                </>
              ) : null}
              {`; the ledger suggests ${s.grade.suggested}`}
            </>
          ) : (
            `not graded; the ledger suggests ${s.grade.suggested}`
          )}
        </dd>
      </dl>
      {s.attributions.latest.length > 0 ? (
        <>
          <h3>Attribution</h3>
          <ul data-attributions="">
            {s.attributions.latest.map((a) => (
              <li>
                <bdi>{a.perpetrator.name}</bdi>
                {a.perpetrator.side ? (
                  <>
                    {" ("}
                    <bdi>{a.perpetrator.side}</bdi>
                    {")"}
                  </>
                ) : null}
                {`: ${a.certainty} certainty`}
                {a.reasoning ? (
                  <>
                    {" — "}
                    <bdi>{a.reasoning}</bdi>
                  </>
                ) : null}
              </li>
            ))}
          </ul>
        </>
      ) : null}
      {s.links.items.length > 0 ? (
        <>
          <h3>Linked incidents</h3>
          <ul data-links="">
            {s.links.items.map((l) => (
              <li data-link={l.incidentId} data-direction={l.direction}>
                {l.direction === "outgoing" ? `This incident: ${l.relation} ` : ""}
                <a href={viewPath(l.incidentId)}>{l.incidentId}</a>
                {l.direction === "incoming" ? ` (linked from there: ${l.relation} this incident)` : ""}
              </li>
            ))}
          </ul>
          {s.links.count > s.links.items.length ? (
            <p class="muted">{`${s.links.count - s.links.items.length} more links not shown`}</p>
          ) : null}
        </>
      ) : null}
      {history.length > 0 ? (
        <>
          <h3>{`Revisions (${s.revisions}; last in v${s.revisedInVersion})`}</h3>
          <ul data-revisions="">
            {history.map(([field, h]) =>
              h ? <History field={field} changes={h.changes} recent={h.recent} /> : null,
            )}
          </ul>
        </>
      ) : null}
    </section>
  );
};
