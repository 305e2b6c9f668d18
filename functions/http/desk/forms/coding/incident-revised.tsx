import type { Location } from "../../../../../events/schemas.js";
import { AttributionFields, SourceFields, TextArea, TextField } from "../../form-kit.js";
import { type ReadForm, readEnvelope, setPath } from "../../form-read.js";
import {
  ATTRIBUTION_FIELDS,
  type DeskForm,
  type FormContext,
  labelFrom,
  SOURCE_FIELDS,
} from "../desk-form.js";
import {
  COORDINATES,
  INCIDENT_FIELDS,
  INCIDENT_LABELS,
  NOT_CODED,
  PLACE_PARTS,
  PlaceFields,
  WhenFields,
} from "../incident-fields.js";

const LABELS: Record<string, string> = {
  ...INCIDENT_LABELS,
  "attributedTo.name": "Name of who revised it",
};

const PRECISION = "data.location.precision";
const TIME_PRECISION = "data.timePrecision";

/** The incident's place as it stands (its summary's), where the desk read it. */
const currentPlace = (context: FormContext): Location | null => context.summary?.location ?? null;

/** A place's part as the form shows it ("" where the place has none). */
function partOf(place: Location | null, field: string): string {
  const value = place ? (place as Record<string, unknown>)[field.slice("data.location.".length)] : undefined;
  return value === undefined || value === null ? "" : String(value);
}

/**
 * A revised `location` replaces the whole place, so the form shows the place as it stands (its
 * precision too) and an editor changes what is wrong: the place goes into the revision only when
 * a part of it changed, whole, as the fields then hold it. With the place unchanged, an unchanged
 * precision revises nothing, and a changed one revises the current place with it.
 */
function readRevision(values: ReadonlyMap<string, string>, context: FormContext): ReadForm {
  const current = currentPlace(context);
  const given = (field: string) => (values.get(field) ?? "").trim();
  const newPlace = PLACE_PARTS.some((f) => given(f) !== partOf(current, f));
  const withdrawn = given(TIME_PRECISION) === NOT_CODED;
  const read = readEnvelope("IncidentRevised", values, {
    decimals: COORDINATES,
    skip: (name) =>
      (withdrawn && name === TIME_PRECISION) ||
      ((name === PRECISION || PLACE_PARTS.includes(name)) && !newPlace && current !== null),
  });
  if (withdrawn) setPath(read.body, ["data", "timePrecision"], null);
  const chosen = given(PRECISION);
  if (!newPlace && current && chosen !== (current.precision ?? "")) {
    const { precision: _was, ...place } = current;
    setPath(read.body, ["data", "location"], chosen ? { ...place, precision: chosen } : place);
  }
  return read;
}

/** `IncidentRevised` (coding issue): an editor corrects the incident's details; blank fields stay as they are. */
export const incidentRevisedForm: DeskForm = {
  slug: "revision",
  type: "IncidentRevised",
  title: "Revise the incident's details",
  blurb: "Correct the title, kind, place or time; each field given replaces the current value (editors).",
  role: "editor",
  where: "incident",
  fields: () => [...INCIDENT_FIELDS, ...ATTRIBUTION_FIELDS, ...SOURCE_FIELDS],
  label: labelFrom(LABELS),
  initial: (context): Record<string, string> => {
    const current = currentPlace(context);
    const shown = [...PLACE_PARTS, PRECISION].map((f) => [f, partOf(current, f)] as const);
    return Object.fromEntries(shown.filter(([, value]) => value !== ""));
  },
  read: readRevision,
  Fields: ({ form }) => (
    <>
      <p class="field-hint">
        Fill in only what changes. The place is shown as it stands: change what is wrong, and the place is
        revised whole, as its fields then read.
      </p>
      <fieldset>
        <legend>The incident</legend>
        <TextField form={form} name="data.title" label="Title" optional />
        <TextField form={form} name="data.kind" label="Kind" narrow optional />
        <TextArea form={form} name="data.description" label="Description" optional />
      </fieldset>
      <PlaceFields form={form} revising />
      <WhenFields form={form} revising />
      <AttributionFields form={form} legend="Who revised it" />
      <SourceFields form={form} />
    </>
  ),
};
