import { AttributionFields, SourceFields, TextArea, TextField } from "../form-kit.js";
import { readEnvelope } from "../form-read.js";
import { ATTRIBUTION_FIELDS, type DeskForm, labelFrom, SOURCE_FIELDS } from "./desk-form.js";
import { COORDINATES, INCIDENT_FIELDS, INCIDENT_LABELS, PlaceFields, WhenFields } from "./incident-fields.js";

const LABELS: Record<string, string> = {
  incidentId: "Incident name",
  ...INCIDENT_LABELS,
  "attributedTo.name": "Name of who reported it",
};

const FIELDS = ["incidentId", ...INCIDENT_FIELDS, ...SOURCE_FIELDS, ...ATTRIBUTION_FIELDS];

/** `IncidentOpened`: the first event of an incident, at /desk/new. */
export const incidentOpenedForm: DeskForm = {
  slug: "new",
  type: "IncidentOpened",
  title: "Open an incident",
  blurb: "A strike, a mass grave, a shelling: one real-world event, named once.",
  role: "writer",
  where: "new",
  fields: () => FIELDS,
  label: labelFrom(LABELS),
  read: (values) => readEnvelope("IncidentOpened", values, { decimals: COORDINATES }),
  Fields: ({ form }) => (
    <>
      <fieldset>
        <legend>The incident</legend>
        <TextField
          form={form}
          name="incidentId"
          label={LABELS.incidentId as string}
          hint="Its permanent name in web addresses: 3–96 characters of a–z, 0–9 and -, e.g. kramatorsk-station-2022-04-08."
          autocomplete="off"
        />
        <TextField form={form} name="data.title" label="Title" />
        <TextField
          form={form}
          name="data.kind"
          label="Kind"
          hint="A lowercase word or phrase with dashes: missile-strike, mass-grave, shelling."
          list="kinds"
          narrow
        />
        <datalist id="kinds">
          <option value="missile-strike" />
          <option value="mass-grave" />
          <option value="shelling" />
          <option value="air-strike" />
        </datalist>
        <TextArea form={form} name="data.description" label="Description" optional />
      </fieldset>
      <PlaceFields form={form} />
      <WhenFields form={form} />
      <SourceFields form={form} />
      <AttributionFields form={form} legend="Who reported it (if anyone in particular)" optional />
    </>
  ),
};
