import type { FC } from "hono/jsx";
import { LOCATION_PRECISIONS, TIME_PRECISIONS } from "../../../../events/schemas.js";
import { type Choice, type FormState, SelectField, TextField } from "../form-kit.js";

/**
 * The incident's own details, as opened (IncidentOpened) and as revised (IncidentRevised, every
 * field optional: blank stays as it is): the same labels, hints and names in both forms.
 */

/** Their labels, for messages that name them, in page order (the error summary follows it). */
export const INCIDENT_LABELS: Record<string, string> = {
  "data.title": "Title",
  "data.kind": "Kind",
  "data.description": "Description",
  "data.location.name": "Place",
  "data.location.region": "Region",
  "data.location.country": "Country",
  "data.location.lat": "Latitude",
  "data.location.lon": "Longitude",
  "data.location.precision": "How exactly the place is known",
  "data.occurredOn": "Day it happened",
  "data.occurredAt": "Time it happened",
  "data.occurredUntil": "When it ended",
  "data.timePrecision": "How exactly the date is known",
};

/** Every field of the incident's details, in page order. */
export const INCIDENT_FIELDS = Object.keys(INCIDENT_LABELS);

/** Numbers in decimal degrees, read as numbers. */
export const COORDINATES = ["data.location.lat", "data.location.lon"];

/** The codebook's precisions ("Precision and revision"), in words a recorder uses. */
const TIME_WORDS: Record<(typeof TIME_PRECISIONS)[number], string> = {
  day: "The day",
  days: "Within a few days",
  week: "The week",
  month: "The month",
  year: "Only the year",
};
const PLACE_WORDS: Record<(typeof LOCATION_PRECISIONS)[number], string> = {
  exact: "The exact spot",
  near: "Near a known place",
  adm2: "Somewhere in a district (a raion, a county)",
  adm1: "Somewhere in a region (an oblast, a province)",
  subnational: "A larger part of the country (“the east”)",
  country: "Only the country",
  water: "At sea or in the air",
};
const choices = <K extends string>(keys: readonly K[], words: Record<K, string>): Choice[] =>
  keys.map((value) => ({ value, label: words[value] }));
export const TIME_PRECISION_CHOICES = choices(TIME_PRECISIONS, TIME_WORDS);
/** A revision's choice that withdraws the date's coding (the API's `timePrecision: null`). */
export const NOT_CODED = "not-coded";
export const PLACE_PRECISION_CHOICES = choices(LOCATION_PRECISIONS, PLACE_WORDS);

/** The place's parts but its precision: what a new place is given by. */
export const PLACE_PARTS = INCIDENT_FIELDS.filter(
  (f) => f.startsWith("data.location.") && f !== "data.location.precision",
);

/** Where: the place, its region and country, its coordinates where known, and how exactly it is known. */
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
    <SelectField
      form={form}
      name="data.location.precision"
      label="How exactly the place is known"
      hint={
        revising
          ? "Shown as it is now. A place changed above takes this precision; changed on its own, it re-codes the place as it is."
          : "How closely the reports place it: the spot itself, near a named place, only a district or region, or only the country."
      }
      choices={PLACE_PRECISION_CHOICES}
      blank="Not given"
      optional
    />
  </fieldset>
);

/** When: the day, or the time with its zone; when it ended; and how exactly the date is known. */
export const WhenFields: FC<{ form: FormState; revising?: boolean }> = ({ form, revising }) => (
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
    <TextField
      form={form}
      name="data.occurredUntil"
      label="When it ended"
      hint="If it went on: the last day (e.g. 2022-04-10) or a time with its zone; not before it began."
      narrow
      optional
    />
    <SelectField
      form={form}
      name="data.timePrecision"
      label="How exactly the date is known"
      hint="How closely the reports date it: “on 8 April” is the day, “in the first week of April” the week, “in April” the month."
      choices={
        revising
          ? [...TIME_PRECISION_CHOICES, { value: NOT_CODED, label: "Not coded (withdraw the coding)" }]
          : TIME_PRECISION_CHOICES
      }
      blank={revising ? "Unchanged" : "Not given"}
      optional
    />
  </fieldset>
);
