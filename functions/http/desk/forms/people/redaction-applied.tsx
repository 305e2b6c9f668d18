import { commitmentsIn } from "../../../../../events/sealing.js";
import type { StoredEvent } from "../../../../../events/stored-event.js";
import { isolate, sealedValueText, typeLabel } from "../../../pages/format.js";
import {
  AttributionFields,
  Checkboxes,
  Radios,
  SelectField,
  SourceFields,
  TextArea,
  TextField,
} from "../../form-kit.js";
import { readEnvelope, setPath } from "../../form-read.js";
import {
  ATTRIBUTION_FIELDS,
  type DeskForm,
  type FormContext,
  labelFrom,
  openedKey,
  SOURCE_FIELDS,
} from "../desk-form.js";
import { TargetPicker, targeting, targetsOf } from "../target-picker.js";

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

/** Sealed fields offered to tick, an event at most: past them, their pointers are typed. */
const TICKABLE = 60;

/** A ticked field's name: the event's version and the field's place among its sealed values. */
const TICK = /^pointer\.(\d+)\.\d+$/;

/** A sealed value's place in words: "Person 2: name", "the private person's role". */
export function pointerLabel(pointer: string): string {
  const victim = /^\/data\/victims\/(\d+)\/(.+)$/.exec(pointer);
  if (victim) return `Person ${Number(victim[1]) + 1}: ${victim[2]}`;
  const speaker = /^\/attributedTo\/(.+)$/.exec(pointer);
  if (speaker) return `the private person's ${speaker[1]}`;
  return pointer;
}

/** A sealed field's label, with its value where this reader may see it (a restricted-reader). */
const withOpened = (label: string, value: unknown) =>
  value === undefined ? label : `${label} (${isolate(sealedValueText(value))})`;

/**
 * The pointers to redact: the fields ticked under the chosen event, and those typed one a line.
 * A field ticked under another event is a mistake to name, not to drop.
 */
function chosenPointers(values: ReadonlyMap<string, string>, context: FormContext) {
  const target = context.events.find((e) => e.eventId === values.get("data.targetEventId"));
  const ticked: string[] = [];
  let elsewhere = false;
  for (const [name, pointer] of values) {
    const tick = TICK.exec(name);
    if (!tick) continue;
    if (target && Number(tick[1]) === target.version) ticked.push(pointer);
    else elsewhere = true;
  }
  const typed = (values.get("data.pointers") ?? "")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "");
  return { pointers: [...new Set([...ticked, ...typed])], elsewhere };
}

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
    "data.pointers": "Fields to redact",
    "data.effect": "Effect",
    "data.reason": "Reason",
    "data.legalBasis": "Legal basis",
    "data.requestRef": "Request reference",
    "attributedTo.name": "Name of who decided it",
  }),
  ...targeting(holdsSealedValues),
  namesPeople: true,
  read: (values, context) => {
    const read = readEnvelope("RedactionApplied", values, { skip: (name) => name === "data.pointers" });
    const { pointers, elsewhere } = chosenPointers(values, context);
    setPath(read.body, ["data", "pointers"], pointers);
    if (elsewhere)
      read.errors.set(
        "data.pointers",
        "include fields ticked under another event than the one chosen: choose that event, or untick them",
      );
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
      {targetsOf(context, holdsSealedValues).map((event) => (
        <Checkboxes
          form={form}
          id={`f-pointers-v${event.version}`}
          legend={`Fields of v${event.version} (${typeLabel(event.type)}) to redact, if it is the one chosen`}
          choices={commitmentsIn(event)
            .slice(0, TICKABLE)
            .map((m, i) => ({
              name: `pointer.${event.version}.${i}`,
              value: m.pointer,
              label: withOpened(
                pointerLabel(m.pointer),
                context.opened?.get(openedKey(event.eventId, m.pointer)),
              ),
            }))}
        />
      ))}
      <TextArea
        form={form}
        name="data.pointers"
        label="Other fields"
        hint={`One JSON Pointer a line for a field not ticked above (past the first ${TICKABLE} of an event), e.g. /data/victims/60/name`}
        rows={2}
        optional
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
