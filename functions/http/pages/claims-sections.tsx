import type { FC } from "hono/jsx";
import type { AssessmentSummary, Summary } from "../../../events/summarize.js";
import { attributionText, formatInstant, sourceName } from "./format.js";

/** Statements and denials, each with the assessments made of it, from the summary. */

type Statement = Summary["statements"]["latest"][number];
type Denial = Summary["denials"][number];

const VERDICT_WORDS: Record<string, string> = {
  unassessed: "not assessed yet",
  supported: "supported",
  disputed: "disputed",
  false: "assessed as false",
  unverified: "unverified",
};

export const VerdictTag: FC<{ verdict: string }> = ({ verdict }) => (
  <span class={`tag verdict-${verdict}`}>{VERDICT_WORDS[verdict] ?? verdict}</span>
);

const Assessments: FC<{ items: AssessmentSummary[] }> = ({ items }) =>
  items.length === 0 ? null : (
    <ul class="assessments" aria-label="Assessments">
      {items.map((a) => (
        <li data-assessment={a.eventId}>
          <VerdictTag verdict={a.verdict} /> by {attributionText(a.attributedTo)}
          {a.reasoning ? `: ${a.reasoning}` : ""} <a href={`#ev-${a.eventId}`}>{`v${a.version}`}</a>
        </li>
      ))}
    </ul>
  );

const DenialCard: FC<{ denial: Denial }> = ({ denial: d }) => (
  <article
    class="denial"
    data-denial={d.eventId}
    data-status={d.status}
    aria-labelledby={`denial-${d.eventId}`}
  >
    <h3 id={`denial-${d.eventId}`}>{`${sourceName(d.attributedTo)} denies ${d.claim}`}</h3>
    <p>
      Status: <VerdictTag verdict={d.status} />{" "}
      <span class="muted">
        {d.assessments.length
          ? `(latest of ${d.assessments.length} assessment(s))`
          : "(no assessment on record)"}
      </span>
    </p>
    {d.counterClaim ? <p>{`Counter-claim: ${d.counterClaim}`}</p> : null}
    {d.quote ? (
      <figure class="quote">
        <blockquote>{d.quote}</blockquote>
      </figure>
    ) : null}
    <p class="muted">
      {`${attributionText(d.attributedTo)} · recorded ${formatInstant(d.recordedAt)} · `}
      <a href={`#ev-${d.eventId}`}>{`v${d.version}`}</a>
    </p>
    <Assessments items={d.assessments} />
  </article>
);

export const DenialsSection: FC<{ summary: Summary }> = ({ summary }) => (
  <section aria-labelledby="denials-h" id="denials">
    <h2 id="denials-h">{`Denials (${summary.denials.length})`}</h2>
    {summary.denials.length === 0 ? (
      <p>No denial on record{summary.retractedEventIds.length ? " (retracted ones are not counted)" : ""}.</p>
    ) : (
      summary.denials.map((d) => <DenialCard denial={d} />)
    )}
  </section>
);

const StatementQuote: FC<{ statement: Statement }> = ({ statement: s }) => (
  <figure class="quote" data-statement={s.eventId}>
    <blockquote>{s.quote}</blockquote>
    <figcaption>
      {`— ${attributionText(s.attributedTo)} · ${s.stance}`}
      {s.accuses ? ` · accuses ${s.accuses}` : ""}
      {s.channel ? ` · via ${s.channel}` : ""}
      {` · recorded ${formatInstant(s.recordedAt)} · `}
      <a href={`#ev-${s.eventId}`}>{`v${s.version}`}</a>
      <Assessments items={s.assessments} />
    </figcaption>
  </figure>
);

export const StatementsSection: FC<{ summary: Summary }> = ({ summary }) => {
  const { count, latest } = summary.statements;
  return (
    <section aria-labelledby="statements-h" id="statements">
      <h2 id="statements-h">{`Statements (${count})`}</h2>
      {count > latest.length ? (
        <p class="muted">{`The ${latest.length} latest, newest first; every statement is in the timeline below.`}</p>
      ) : null}
      {latest.length === 0 ? (
        <p>No statement on record.</p>
      ) : (
        latest.map((s) => <StatementQuote statement={s} />)
      )}
    </section>
  );
};
