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
  ...targeting(),
  Fields: ({ form, context }) => (
    <>
      <TargetPicker
        form={form}
        context={context}
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
