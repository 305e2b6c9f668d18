import { AttributionFields, OccurredAtField, SourceFields, TextArea } from "../form-kit.js";
import { readEnvelope } from "../form-read.js";
import { ATTRIBUTION_FIELDS, type DeskForm, labelFrom, SOURCE_FIELDS } from "./desk-form.js";

const LABELS: Record<string, string> = {
  "attributedTo.name": "Name of who denies it",
  "data.claim": "What is denied",
  "data.counterClaim": "Counter-claim",
  "data.quote": "Quote",
};

/** `DenialIssued`: someone denies a claim (responsibility, that it happened, a weapon in service). */
export const denialIssuedForm: DeskForm = {
  slug: "denial",
  type: "DenialIssued",
  title: "Record a denial",
  blurb: "Someone denies a claim; its assessments follow it on the page.",
  role: "writer",
  where: "incident",
  fields: () => [
    ...ATTRIBUTION_FIELDS,
    "data.claim",
    "data.counterClaim",
    "data.quote",
    ...SOURCE_FIELDS,
    "occurredAt",
  ],
  label: labelFrom(LABELS),
  read: (values) => readEnvelope("DenialIssued", values),
  Fields: ({ form }) => (
    <>
      <AttributionFields form={form} legend="Who denies it" />
      <fieldset>
        <legend>The denial</legend>
        <TextArea
          form={form}
          name="data.claim"
          label="What is denied"
          hint="e.g. responsibility for the strike; that the killings happened"
          rows={2}
        />
        <TextArea
          form={form}
          name="data.counterClaim"
          label="Counter-claim"
          hint="What they say happened instead."
          rows={2}
          optional
        />
        <TextArea form={form} name="data.quote" label="Quote" hint="Word for word." optional />
      </fieldset>
      <SourceFields form={form} />
      <OccurredAtField form={form} />
    </>
  ),
};
