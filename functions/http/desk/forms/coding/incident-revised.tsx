import { AttributionFields, SelectField, SourceFields, TextArea, TextField } from "../../form-kit.js";
import { readEnvelope } from "../../form-read.js";
import { ATTRIBUTION_FIELDS, type DeskForm, labelFrom, SOURCE_FIELDS } from "../desk-form.js";
import { COORDINATES, INCIDENT_LABELS, PlaceFields, WhenFields } from "../incident-fields.js";

const LABELS: Record<string, string> = {
  ...INCIDENT_LABELS,
  "data.occurredUntil": "When it ended",
  "data.timePrecision": "How exactly the date is known",
  "data.description": "Description",
  "attributedTo.name": "Name of who revised it",
};

const PRECISIONS = [
  { value: "day", label: "The day" },
  { value: "days", label: "Within a few days" },
  { value: "week", label: "The week" },
  { value: "month", label: "The month" },
  { value: "year", label: "The year" },
];

/** `IncidentRevised` (coding issue): an editor corrects the incident's details; blank fields stay as they are. */
export const incidentRevisedForm: DeskForm = {
  slug: "revision",
  type: "IncidentRevised",
  title: "Revise the incident's details",
  blurb: "Correct the title, kind, place or time; each field given replaces the current value (editors).",
  role: "editor",
  where: "incident",
  fields: () => [
    ...Object.keys(LABELS).filter((f) => f.startsWith("data.")),
    ...ATTRIBUTION_FIELDS,
    ...SOURCE_FIELDS,
  ],
  label: labelFrom(LABELS),
  read: (values) => readEnvelope("IncidentRevised", values, { decimals: COORDINATES }),
  Fields: ({ form }) => (
    <>
      <p class="field-hint">Fill in only what changes. A new place replaces the old one whole.</p>
      <fieldset>
        <legend>The incident</legend>
        <TextField form={form} name="data.title" label="Title" optional />
        <TextField form={form} name="data.kind" label="Kind" narrow optional />
        <TextArea form={form} name="data.description" label="Description" optional />
      </fieldset>
      <PlaceFields form={form} revising />
      <WhenFields form={form}>
        <TextField
          form={form}
          name="data.occurredUntil"
          label="When it ended"
          hint="A date or a time"
          narrow
          optional
        />
        <SelectField
          form={form}
          name="data.timePrecision"
          label="How exactly the date is known"
          choices={PRECISIONS}
          blank="Unchanged"
          optional
        />
      </WhenFields>
      <AttributionFields form={form} legend="Who revised it" />
      <SourceFields form={form} />
    </>
  ),
};
