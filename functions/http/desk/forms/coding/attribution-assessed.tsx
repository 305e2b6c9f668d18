import { AttributionFields, Radios, SourceFields, TextArea, TextField } from "../../form-kit.js";
import { readEnvelope } from "../../form-read.js";
import { ATTRIBUTION_FIELDS, type DeskForm, labelFrom, SOURCE_FIELDS } from "../desk-form.js";

const CERTAINTY = [
  { value: "low", label: "Low" },
  { value: "medium", label: "Medium" },
  { value: "high", label: "High" },
];

/** `AttributionAssessed` (coding issue): who the archive judges carried it out, and how certainly. */
export const attributionAssessedForm: DeskForm = {
  slug: "attribution",
  type: "AttributionAssessed",
  title: "Assess who carried it out",
  blurb: "The archive's judgement of the perpetrator, with its certainty (editors).",
  role: "editor",
  where: "incident",
  fields: () => [
    "data.perpetrator.name",
    "data.perpetrator.side",
    "data.perpetrator.actorId",
    "data.certainty",
    "data.reasoning",
    ...ATTRIBUTION_FIELDS,
    ...SOURCE_FIELDS,
  ],
  label: labelFrom({
    "data.perpetrator.name": "Perpetrator",
    "data.perpetrator.side": "Perpetrator's side",
    "data.perpetrator.actorId": "Actor id",
    "data.certainty": "Certainty",
    "data.reasoning": "Reasoning",
    "attributedTo.name": "Name of who assessed it",
  }),
  read: (values) => readEnvelope("AttributionAssessed", values),
  Fields: ({ form }) => (
    <>
      <fieldset>
        <legend>The perpetrator</legend>
        <TextField form={form} name="data.perpetrator.name" label="Perpetrator" list="speakers" />
        <TextField form={form} name="data.perpetrator.side" label="Perpetrator's side" optional />
        <TextField
          form={form}
          name="data.perpetrator.actorId"
          label="Actor id"
          hint="An id in another dataset (e.g. ACLED's actor), if known."
          optional
        />
      </fieldset>
      <Radios form={form} name="data.certainty" label="Certainty" choices={CERTAINTY} />
      <TextArea form={form} name="data.reasoning" label="Reasoning" optional />
      <AttributionFields form={form} legend="Who assessed it" />
      <SourceFields form={form} />
    </>
  ),
};
