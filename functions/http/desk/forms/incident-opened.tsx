import { AttributionFields, SourceFields, TextArea, TextField } from "../form-kit.js";
import { readEnvelope } from "../form-read.js";
import { ATTRIBUTION_FIELDS, type DeskForm, labelFrom, SOURCE_FIELDS } from "./desk-form.js";

const LABELS: Record<string, string> = {
  incidentId: "Incident name",
  "data.title": "Title",
  "data.kind": "Kind",
  "data.location.name": "Place",
  "data.location.region": "Region",
  "data.location.country": "Country",
  "data.location.lat": "Latitude",
  "data.location.lon": "Longitude",
  "data.occurredOn": "Day it happened",
  "data.occurredAt": "Time it happened",
  "data.description": "Description",
  "attributedTo.name": "Name of who reported it",
};

const FIELDS = [
  "incidentId",
  "data.title",
  "data.kind",
  "data.location.name",
  "data.location.region",
  "data.location.country",
  "data.location.lat",
  "data.location.lon",
  "data.occurredOn",
  "data.occurredAt",
  "data.description",
  ...SOURCE_FIELDS,
  ...ATTRIBUTION_FIELDS,
];

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
  read: (values) =>
    readEnvelope("IncidentOpened", values, {
      decimals: ["data.location.lat", "data.location.lon"],
    }),
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
      <fieldset>
        <legend>Where</legend>
        <TextField form={form} name="data.location.name" label="Place" />
        <TextField form={form} name="data.location.region" label="Region" optional />
        <TextField
          form={form}
          name="data.location.country"
          label="Country"
          hint="Its two-letter code in capitals (ISO 3166), e.g. UA."
          narrow
        />
        <div class="row">
          <TextField
            form={form}
            name="data.location.lat"
            label="Latitude"
            inputmode="decimal"
            hint="Decimal degrees, e.g. 48.7305"
            optional
          />
          <TextField
            form={form}
            name="data.location.lon"
            label="Longitude"
            inputmode="decimal"
            hint="Decimal degrees, e.g. 37.5867"
            optional
          />
        </div>
      </fieldset>
      <fieldset>
        <legend>When</legend>
        <p class="field-hint">Give the day, or the time if it is known — not both.</p>
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
      </fieldset>
      <SourceFields form={form} />
      <AttributionFields form={form} legend="Who reported it (if anyone in particular)" optional />
    </>
  ),
};
