import { AttributionFields, Radios, SourceFields, TextField } from "../../form-kit.js";
import { readEnvelope } from "../../form-read.js";
import { ATTRIBUTION_FIELDS, type DeskForm, labelFrom, SOURCE_FIELDS } from "../desk-form.js";

const RELATIONS = [
  { value: "duplicate-of", label: "Duplicate of", hint: "the same incident recorded twice" },
  { value: "same-event", label: "Same event", hint: "another record of the same real-world event" },
  { value: "part-of", label: "Part of", hint: "this incident is part of the other" },
  { value: "related", label: "Related" },
];

/** `IncidentsLinked` (coding issue): this incident and another, and how they relate. */
export const incidentsLinkedForm: DeskForm = {
  slug: "link",
  type: "IncidentsLinked",
  title: "Link to another incident",
  blurb: "A duplicate, the same event, a part of it, or related (editors).",
  role: "editor",
  where: "incident",
  fields: () => ["data.otherIncidentId", "data.relation", ...ATTRIBUTION_FIELDS, ...SOURCE_FIELDS],
  label: labelFrom({
    "data.otherIncidentId": "Other incident",
    "data.relation": "Relation",
    "attributedTo.name": "Name of who linked them",
  }),
  read: (values) => readEnvelope("IncidentsLinked", values),
  Fields: ({ form }) => (
    <>
      <TextField
        form={form}
        name="data.otherIncidentId"
        label="Other incident"
        hint="Its name, as in its address: /view/<name>."
      />
      <Radios form={form} name="data.relation" label="Relation" choices={RELATIONS} />
      <AttributionFields form={form} legend="Who linked them" />
      <SourceFields form={form} />
    </>
  ),
};
