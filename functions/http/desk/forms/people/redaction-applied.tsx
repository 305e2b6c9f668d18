import { commitmentsIn } from "../../../../../events/sealing.js";
import type { StoredEvent } from "../../../../../events/stored-event.js";
import { AttributionFields, Radios, SelectField, SourceFields, TextArea, TextField } from "../../form-kit.js";
import { readEnvelope, setPath } from "../../form-read.js";
import { ATTRIBUTION_FIELDS, type DeskForm, labelFrom, SOURCE_FIELDS } from "../desk-form.js";
import { TargetPicker, targeting } from "../target-picker.js";

const REASONS = [
  { value: "safety-risk", label: "A risk to someone's safety" },
  { value: "data-subject-request", label: "The person asked (data subject request)" },
  { value: "court-order", label: "A court order" },
  { value: "consent-withdrawn", label: "Consent withdrawn" },
  { value: "minor", label: "A minor" },
  { value: "recording-error", label: "Recorded in error" },
];

/** An event a redaction can name: one with a sealed value (a victims list, a private person's report). */
const holdsSealedValues = (event: StoredEvent) => commitmentsIn(event).length > 0;

/** `RedactionApplied` (people issue): an editor withholds or erases sealed values of an event. */
export const redactionAppliedForm: DeskForm = {
  slug: "redaction",
  type: "RedactionApplied",
  title: "Redact personal data",
  blurb: "Withhold or erase sealed values of an event; it names fields, never values (editors).",
  role: "editor",
  where: "incident",
  fields: () => [
    "data.targetEventId",
    "data.pointers",
    "data.effect",
    "data.reason",
    "data.legalBasis",
    "data.requestRef",
    ...ATTRIBUTION_FIELDS,
    ...SOURCE_FIELDS,
  ],
  label: labelFrom({
    "data.targetEventId": "What is redacted",
    "data.pointers": "Fields",
    "data.effect": "Effect",
    "data.reason": "Reason",
    "data.legalBasis": "Legal basis",
    "data.requestRef": "Request reference",
    "attributedTo.name": "Name of who decided it",
  }),
  ...targeting(holdsSealedValues),
  read: (values) => {
    const read = readEnvelope("RedactionApplied", values, { skip: (name) => name === "data.pointers" });
    const pointers = (values.get("data.pointers") ?? "")
      .split("\n")
      .map((line) => line.trim())
      .filter((line) => line !== "");
    setPath(read.body, ["data", "pointers"], pointers);
    return read;
  },
  fieldFor: (path) => (path.startsWith("data.pointers") ? "data.pointers" : null),
  Fields: ({ form, context }) => (
    <>
      <TargetPicker
        form={form}
        context={context}
        legend="What is redacted"
        hint="The incident's events holding sealed values (victim records, private persons), newest first."
        types={holdsSealedValues}
      />
      <TextArea
        form={form}
        name="data.pointers"
        label="Fields"
        hint="One JSON Pointer a line, e.g. /data/victims/0/name, or /attributedTo/name for a private person"
        rows={3}
      />
      <Radios
        form={form}
        name="data.effect"
        label="Effect"
        choices={[
          { value: "withheld", label: "Withheld", hint: "kept sealed, shown only to restricted readers" },
          { value: "erased", label: "Erased", hint: "its key destroyed: unreadable for ever" },
        ]}
      />
      <SelectField form={form} name="data.reason" label="Reason" choices={REASONS} blank="Choose…" />
      <TextArea form={form} name="data.legalBasis" label="Legal basis" rows={2} optional />
      <TextField form={form} name="data.requestRef" label="Request reference" optional />
      <AttributionFields form={form} legend="Who decided it" />
      <SourceFields form={form} />
    </>
  ),
};
