import { AttributionFields, Radios, SourceFields, TextArea } from "../../form-kit.js";
import { readEnvelope, setPath } from "../../form-read.js";
import { ATTRIBUTION_FIELDS, type DeskForm, labelFrom, SOURCE_FIELDS } from "../desk-form.js";

const GRADES = [
  { value: "single-source", label: "Single source", hint: "one source reports it" },
  { value: "corroborated", label: "Corroborated", hint: "independent sources agree" },
  { value: "contested", label: "Contested", hint: "sources disagree or it is denied" },
  { value: "confirmed", label: "Confirmed", hint: "established beyond reasonable doubt" },
  { value: "discounted", label: "Discounted", hint: "the archive judges it did not happen as reported" },
];

/** `IncidentGraded` (coding issue): the archive's grade of the incident, an editor's judgement. */
export const incidentGradedForm: DeskForm = {
  slug: "grade",
  type: "IncidentGraded",
  title: "Grade the incident",
  blurb: "The archive's own grade of how well the incident is established (editors).",
  role: "editor",
  where: "incident",
  fields: () => ["data.grade", "data.reasoning", ...ATTRIBUTION_FIELDS, ...SOURCE_FIELDS],
  label: labelFrom({
    "data.grade": "Grade",
    "data.reasoning": "Reasoning",
    "attributedTo.name": "Name of who graded it",
  }),
  read: (values) => {
    const read = readEnvelope("IncidentGraded", values);
    // The one scale the archive grades on: not a choice for the editor.
    setPath(read.body, ["data", "scale"], "ledger");
    return read;
  },
  Fields: ({ form }) => (
    <>
      <Radios
        form={form}
        name="data.grade"
        label="Grade"
        hint="On the archive's own scale (the codebook's “Grades”, /codebook#grades)."
        choices={GRADES}
      />
      <TextArea form={form} name="data.reasoning" label="Reasoning" optional />
      <AttributionFields form={form} legend="Who graded it" />
      <SourceFields form={form} />
    </>
  ),
};
