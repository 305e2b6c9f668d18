import type { Child, FC } from "hono/jsx";
import { type FormState, TextField } from "../form-kit.js";

/**
 * The incident's own details, as opened (IncidentOpened) and as revised (IncidentRevised, every
 * field optional: blank stays as it is): the same labels, hints and names in both forms.
 */

/** Their labels, for messages that name them. */
export const INCIDENT_LABELS: Record<string, string> = {
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
};

/** Numbers in decimal degrees, read as numbers. */
export const COORDINATES = ["data.location.lat", "data.location.lon"];

/** Where: the place, its region and country, and its coordinates where known. */
export const PlaceFields: FC<{ form: FormState; revising?: boolean }> = ({ form, revising }) => (
  <fieldset>
    <legend>Where</legend>
    <TextField form={form} name="data.location.name" label="Place" optional={revising === true} />
    <TextField form={form} name="data.location.region" label="Region" optional />
    <TextField
      form={form}
      name="data.location.country"
      label="Country"
      hint="Its two-letter code in capitals (ISO 3166), e.g. UA."
      narrow
      optional={revising === true}
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
);

/** When: the day, or the time with its zone (the rest of a fieldset may follow, e.g. an end). */
export const WhenFields: FC<{ form: FormState; children?: Child }> = ({ form, children }) => (
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
    {children}
  </fieldset>
);
