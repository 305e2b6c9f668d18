import { AttributionFields, SelectField, SourceFields, TextArea, TextField } from "../../form-kit.js";
import { readEnvelope } from "../../form-read.js";
import { ATTRIBUTION_FIELDS, type DeskForm, labelFrom, SOURCE_FIELDS } from "../desk-form.js";

const LABELS: Record<string, string> = {
  "data.title": "Title",
  "data.kind": "Kind",
  "data.location.name": "Place",
  "data.location.region": "Region",
  "data.location.country": "Country",
  "data.location.lat": "Latitude",
  "data.location.lon": "Longitude",
  "data.occurredOn": "Day it happened",
  "data.occurredAt": "Time it happened",
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
  read: (values) =>
    readEnvelope("IncidentRevised", values, { decimals: ["data.location.lat", "data.location.lon"] }),
  Fields: ({ form }) => (
    <>
      <p class="field-hint">Fill in only what changes. A new place replaces the old one whole.</p>
      <fieldset>
        <legend>The incident</legend>
        <TextField form={form} name="data.title" label="Title" optional />
        <TextField form={form} name="data.kind" label="Kind" narrow optional />
        <TextArea form={form} name="data.description" label="Description" optional />
      </fieldset>
      <fieldset>
        <legend>Where</legend>
        <TextField form={form} name="data.location.name" label="Place" optional />
        <TextField form={form} name="data.location.region" label="Region" optional />
        <TextField form={form} name="data.location.country" label="Country" hint="e.g. UA" narrow optional />
        <div class="row">
          <TextField form={form} name="data.location.lat" label="Latitude" inputmode="decimal" optional />
          <TextField form={form} name="data.location.lon" label="Longitude" inputmode="decimal" optional />
        </div>
      </fieldset>
      <fieldset>
        <legend>When</legend>
        <TextField
          form={form}
          name="data.occurredOn"
          label="Day it happened"
          hint="e.g. 2022-04-08"
          narrow
          optional
        />
        <TextField
          form={form}
          name="data.occurredAt"
          label="Time it happened"
          hint="With its zone, e.g. 2022-04-08T10:30:00Z"
          narrow
          optional
        />
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
      </fieldset>
      <AttributionFields form={form} legend="Who revised it" />
      <SourceFields form={form} />
    </>
  ),
};
