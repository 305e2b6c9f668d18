import type { FC } from "hono/jsx";
import { ownLabel } from "../../../events/own-keys.js";
import type { AssessmentSummary, Summary } from "../../../events/summarize.js";
import { formatInstant } from "./format.js";
import { PAGE_ASSESSMENTS, PAGE_DENIALS } from "./page-budget.js";
import { Speaker } from "./speaker.js";

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
  <span class={`tag verdict-${verdict}`}>{ownLabel(VERDICT_WORDS, verdict)}</span>
);

/** The newest PAGE_ASSESSMENTS of an assessment list (the page's budget); `count` says how many there are. */
const Assessments: FC<{ items: AssessmentSummary[]; count?: number }> = ({ items, count }) => {
  const shown = items.slice(Math.max(0, items.length - PAGE_ASSESSMENTS));
  const all = count ?? items.length;
  return shown.length === 0 ? null : (
    <ul class="assessments" aria-label="Assessments">
      {all > shown.length ? (
        <li class="muted">{`The latest ${shown.length} of ${all} assessments:`}</li>
      ) : null}
      {shown.map((a) => (
        <li data-assessment={a.eventId}>
          <VerdictTag verdict={a.verdict} /> by <Speaker who={a.attributedTo} />
          {a.reasoning ? ": " : ""}
          {a.reasoning ? <bdi>{a.reasoning}</bdi> : null} <a href={`#ev-${a.eventId}`}>{`v${a.version}`}</a>
        </li>
      ))}
    </ul>
  );
};

const DenialCard: FC<{ denial: Denial }> = ({ denial: d }) => (
  <article
    class="denial"
    data-denial={d.eventId}
    data-status={d.status}
    aria-labelledby={`denial-${d.eventId}`}
  >
    <h3 id={`denial-${d.eventId}`}>
      <Speaker who={d.attributedTo} nameOnly /> denies <bdi>{d.claim}</bdi>
    </h3>
    <p>
      Status: <VerdictTag verdict={d.status} />{" "}
      <span class="muted">
        {(d.assessmentCount ?? d.assessments.length)
          ? `(latest of ${d.assessmentCount ?? d.assessments.length} assessment(s))`
          : "(no assessment on record)"}
      </span>
    </p>
    {d.counterClaim ? (
      <p>
        Counter-claim: <bdi>{d.counterClaim}</bdi>
      </p>
    ) : null}
    {d.quote ? (
      <figure class="quote">
        <blockquote dir="auto">{d.quote}</blockquote>
      </figure>
    ) : null}
    <p class="muted">
      <Speaker who={d.attributedTo} />
      {` · recorded ${formatInstant(d.recordedAt)} · `}
      <a href={`#ev-${d.eventId}`}>{`v${d.version}`}</a>
    </p>
    <Assessments items={d.assessments} count={d.assessmentCount} />
  </article>
);

export const DenialsSection: FC<{ summary: Summary }> = ({ summary }) => {
  const count = summary.denialCount ?? summary.denials.length;
  const shown = summary.denials.slice(Math.max(0, summary.denials.length - PAGE_DENIALS));
  return (
    <section aria-labelledby="denials-h" id="denials">
      <h2 id="denials-h">{`Denials (${count})`}</h2>
      {count > shown.length ? (
        <p class="muted">
          {`The ${shown.length} newest of ${count}; `}
          <a href={`/incidents/${encodeURIComponent(summary.incidentId)}/denials`}>every denial (JSON)</a>.
        </p>
      ) : null}
      {shown.length === 0 ? (
        <p>
          No denial on record{summary.retractedEventIds.length ? " (retracted ones are not counted)" : ""}.
        </p>
      ) : (
        shown.map((d) => <DenialCard denial={d} />)
      )}
    </section>
  );
};

const StatementQuote: FC<{ statement: Statement }> = ({ statement: s }) => (
  <figure class="quote" data-statement={s.eventId}>
    <blockquote dir="auto">{s.quote}</blockquote>
    <figcaption>
      — <Speaker who={s.attributedTo} />
      {` · ${s.stance}`}
      {s.accuses ? " · accuses " : ""}
      {s.accuses ? <bdi>{s.accuses}</bdi> : null}
      {s.channel ? " · via " : ""}
      {s.channel ? <bdi>{s.channel}</bdi> : null}
      {` · recorded ${formatInstant(s.recordedAt)} · `}
      <a href={`#ev-${s.eventId}`}>{`v${s.version}`}</a>
      <Assessments items={s.assessments} count={s.assessmentCount} />
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
