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
  PLACE_PARTS,
  PlaceFields,
  WhenFields,
} from "../incident-fields.js";

const LABELS: Record<string, string> = {
  ...INCIDENT_LABELS,
  "attributedTo.name": "Name of who revised it",
};

const PRECISION = "data.location.precision";

/** The incident's place as it stands (its summary's), where the desk read it. */
const currentPlace = (context: FormContext): Location | null => context.summary?.location ?? null;

/**
 * A revised `location` replaces the whole place, so the place's precision is shown as it stands
 * and goes with a new place unless changed. With no new place, an unchanged precision revises
 * nothing, and a changed one revises the current place with it: an editor need not type the
 * place again to code how exactly it is known.
 */
function readRevision(values: ReadonlyMap<string, string>, context: FormContext): ReadForm {
  const current = currentPlace(context);
  const newPlace = PLACE_PARTS.some((f) => (values.get(f) ?? "").trim() !== "");
  const read = readEnvelope("IncidentRevised", values, {
    decimals: COORDINATES,
    skip: (name) => name === PRECISION && !newPlace && current !== null,
  });
  const chosen = (values.get(PRECISION) ?? "").trim();
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
    const precision = currentPlace(context)?.precision;
    return precision ? { [PRECISION]: precision } : {};
  },
  read: readRevision,
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
      <WhenFields form={form} revising />
      <AttributionFields form={form} legend="Who revised it" />
      <SourceFields form={form} />
    </>
  ),
};
