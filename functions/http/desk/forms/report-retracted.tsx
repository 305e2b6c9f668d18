import { retractable } from "../../../../events/append-rules.js";
import type { StoredEvent } from "../../../../events/stored-event.js";
import { AttributionFields, OccurredAtField, SourceFields, TextArea } from "../form-kit.js";
import { readEnvelope } from "../form-read.js";
import { ATTRIBUTION_FIELDS, type DeskForm, labelFrom, SOURCE_FIELDS } from "./desk-form.js";
import { TargetPicker, targeting } from "./target-picker.js";

const LABELS: Record<string, string> = {
  "attributedTo.name": "Name of who retracted it",
  "data.targetEventId": "What is retracted",
  "data.reason": "Reason",
  occurredAt: "When it was retracted",
};

/**
 * What a retraction may name: a report of a type the API lets be retracted, not retracted yet.
 * Filtered by what the form's context holds (the events it was given).
 */
function retractions(event: StoredEvent, events: readonly StoredEvent[]): boolean {
  return (
    retractable(event.type) &&
    !events.some((e) => e.type === "ReportRetracted" && e.data.targetEventId === event.eventId)
  );
}

/** `ReportRetracted`: a source withdraws one of its reports; it stays in the record, struck through. */
export const reportRetractedForm: DeskForm = {
  slug: "retraction",
  type: "ReportRetracted",
  title: "Record a retraction",
  blurb: "A source withdraws a report: it stays in the record, no longer counted.",
  role: "writer",
  where: "incident",
  fields: () => ["data.targetEventId", "data.reason", ...ATTRIBUTION_FIELDS, ...SOURCE_FIELDS, "occurredAt"],
  label: labelFrom(LABELS),
  read: (values) => readEnvelope("ReportRetracted", values),
  ...targeting(retractions),
  Fields: ({ form, context }) => (
    <>
      <TargetPicker
        form={form}
        context={context}
        types={retractions}
        legend="What is retracted"
        hint="The incident's reports, newest first: who said what, and where it was published."
      />
      <TextArea
        form={form}
        name="data.reason"
        label="Reason"
        hint="Why it was withdrawn, as stated."
        rows={2}
      />
      <AttributionFields form={form} legend="Who retracted it" />
      <SourceFields form={form} />
      <OccurredAtField form={form} label={LABELS.occurredAt} />
    </>
  ),
};
