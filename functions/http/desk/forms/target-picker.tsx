import type { Child } from "hono/jsx";
import { describeFigure } from "../../../../events/figures.js";
import { EDITOR_TYPES, type EventType, type Figure } from "../../../../events/schemas.js";
import type { StoredEvent } from "../../../../events/stored-event.js";
import { attributionParts, categoryLabel, typeLabel } from "../../pages/format.js";
import { type FormState, Radios } from "../form-kit.js";
import type { DeskForm, FormContext } from "./desk-form.js";

/** How far a gist quotes: enough to tell reports apart in a list. */
const GIST = 140;
const cut = (text: string) => (text.length > GIST ? `${text.slice(0, GIST - 1)}…` : text);

/**
 * What an event said, in a line: enough to pick it as a target. Its words (a quote, a claim, a
 * title) are the client's, each in its own <bdi> (a U+202E in one must not turn the rest of the
 * label around); figures and verdicts are the archive's words, ids are ASCII by their schema.
 */
export function eventGist(event: StoredEvent): Child {
  const d = event.data as Record<string, unknown>;
  switch (event.type) {
    case "CasualtiesReported":
      return Object.entries(d.figures as Record<string, Figure>)
        .map(([c, f]) => `${categoryLabel(c)} ${describeFigure(f)}`)
        .join(", ");
    case "StatementMade":
      return (
        <>
          “<bdi>{cut(String(d.quote))}</bdi>”
        </>
      );
    case "DenialIssued":
      return (
        <>
          denies <bdi>{cut(String(d.claim))}</bdi>
        </>
      );
    case "ClaimAssessed":
      return `${String(d.verdict)}: ${String(d.targetEventId)}`;
    case "ReportRetracted":
      return `retracts ${String(d.targetEventId)}`;
    case "VictimsRecorded":
      return Array.isArray(d.victims) ? `${d.victims.length} person(s)` : "";
    default:
      return typeof d.title === "string" ? <bdi>{cut(d.title)}</bdi> : "";
  }
}

/**
 * " · " and who said it: the speaker, or the archive for its own judgements. A report with no
 * speaker is its publisher's, named after it.
 */
function whoOf(event: StoredEvent): Child {
  if (event.attributedTo)
    return (
      <>
        {" · "}
        {attributionParts(event.attributedTo, (text) => (
          <bdi>{text}</bdi>
        ))}
      </>
    );
  return EDITOR_TYPES.includes(event.type as EventType) ? " · the archive" : null;
}

/** ": " and the gist, where the event has one to show. */
function gistOf(event: StoredEvent): Child {
  const gist = eventGist(event);
  return gist === "" ? null : (
    <>
      {": "}
      {gist}
    </>
  );
}

/**
 * "v4 · Denial issued · Russian Ministry of Defence: denies … (TASS)": who said what, where;
 * the speaker's name, role and side, the words and the publisher each bidi-isolated.
 */
export const targetLabel = (event: StoredEvent): Child => (
  <>
    {`v${event.version} · ${typeLabel(event.type)}`}
    {whoOf(event)}
    {gistOf(event)}
    {" ("}
    <bdi>{event.source.publisher}</bdi>
    {")"}
  </>
);

/**
 * Which of the incident's events a form may target: of these types (never the opening, which is
 * not a report), or those a test picks, given the events beside them.
 */
export type Targets = readonly string[] | ((event: StoredEvent, events: readonly StoredEvent[]) => boolean);

export const targetsOf = (context: FormContext, types?: Targets) =>
  context.events.filter((e) =>
    typeof types === "function"
      ? types(e, context.events)
      : e.type !== "IncidentOpened" && (!types || types.includes(e.type)),
  );

/** The target as radios, newest first, each with who said what. */
export const TargetPicker = ({
  form,
  context,
  legend,
  hint,
  types,
}: {
  form: FormState;
  context: FormContext;
  legend: string;
  hint: string;
  types?: Targets;
}) => (
  <Radios
    form={form}
    name="data.targetEventId"
    label={legend}
    hint={hint}
    choices={targetsOf(context, types).map((e) => ({ value: e.eventId, label: targetLabel(e) }))}
  />
);

/**
 * A form about one of the incident's events (`data.targetEventId`): offered once the incident
 * has an event of `types` to pick, the one a link beside an event names picked at first.
 */
export function targeting(types?: Targets): Pick<DeskForm, "offered" | "initial"> {
  return {
    offered: (context) => targetsOf(context, types).length > 0,
    initial: (context): Record<string, string> =>
      context.target ? { "data.targetEventId": context.target } : {},
  };
}
