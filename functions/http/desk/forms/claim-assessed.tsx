import { AttributionFields, OccurredAtField, Radios, SourceFields, TextArea } from "../form-kit.js";
import { readEnvelope } from "../form-read.js";
import { ATTRIBUTION_FIELDS, type DeskForm, labelFrom, SOURCE_FIELDS } from "./desk-form.js";
import { TargetPicker, targeting } from "./target-picker.js";

const LABELS: Record<string, string> = {
  "attributedTo.name": "Name of who assessed it",
  "data.targetEventId": "What is assessed",
  "data.verdict": "Verdict",
  "data.reasoning": "Reasoning",
  occurredAt: "When it was assessed",
};

const VERDICTS = [
  { value: "supported", label: "Supported", hint: "the evidence bears it out" },
  { value: "disputed", label: "Disputed", hint: "the evidence is mixed or contested" },
  { value: "false", label: "False", hint: "the evidence contradicts it" },
  { value: "unverified", label: "Unverified", hint: "it cannot be checked yet" },
];

/** `ClaimAssessed`: what investigators or fact-checkers found of a report or denial. */
export const claimAssessedForm: DeskForm = {
  slug: "assessment",
  type: "ClaimAssessed",
  title: "Record an assessment",
  blurb: "What investigators or fact-checkers found of a denial or report.",
  role: "writer",
  where: "incident",
  fields: () => [
    "data.targetEventId",
    "data.verdict",
    "data.reasoning",
    ...ATTRIBUTION_FIELDS,
    ...SOURCE_FIELDS,
    "occurredAt",
  ],
  label: labelFrom(LABELS),
  read: (values) => readEnvelope("ClaimAssessed", values),
  ...targeting(),
  Fields: ({ form, context }) => (
    <>
      <TargetPicker
        form={form}
        context={context}
        legend="What is assessed"
        hint="The incident's reports, newest first: who said what, and where it was published."
      />
      <fieldset>
        <legend>The assessment</legend>
        <Radios form={form} name="data.verdict" label="Verdict" choices={VERDICTS} />
        <TextArea form={form} name="data.reasoning" label="Reasoning" optional />
      </fieldset>
      <AttributionFields form={form} legend="Who assessed it" />
      <SourceFields form={form} />
      <OccurredAtField form={form} label={LABELS.occurredAt} />
    </>
  ),
};
