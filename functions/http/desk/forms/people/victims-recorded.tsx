import { AGE_GROUPS, SEXES, VICTIM_STATUSES } from "../../../../../events/schemas.js";
import {
  AttributionFields,
  FieldGroup,
  OccurredAtField,
  SelectField,
  SourceFields,
  TextArea,
  TextField,
} from "../../form-kit.js";
import { readEnvelope, readWhole, setPath } from "../../form-read.js";
import { ATTRIBUTION_FIELDS, type DeskForm, labelFrom, SOURCE_FIELDS } from "../desk-form.js";
import { formRows } from "../form-rows.js";

const PARTS = [
  "name",
  "age",
  "ageGroup",
  "sex",
  "status",
  "diedOn",
  "place",
  "notes",
  "publishName",
] as const;
type Part = (typeof PARTS)[number];
/** One row at first; "Add another person" adds one, as the casualty form does. */
const PEOPLE = formRows({
  prefix: "victims",
  parts: PARTS,
  noun: "Person",
  first: 1,
  labels: {
    name: "name",
    age: "age",
    ageGroup: "age group",
    sex: "sex",
    status: "status",
    diedOn: "day of death",
    place: "place",
    notes: "notes",
    publishName: "publish the name",
  },
});
const row = PEOPLE.name;
const rowCount = PEOPLE.count;
/** The people as a whole: where "no one is filled in" is said, above the rows. */
const VICTIMS = "victims";
/** The rows that hold something: the n-th of them is victims[n] of the event. */
const filledRows = (values: ReadonlyMap<string, string>) =>
  Array.from({ length: rowCount(values) }, (_, i) => i).filter((i) =>
    PARTS.some((p) => p !== "publishName" && (values.get(row(i, p)) ?? "").trim() !== ""),
  );

const choices = (values: readonly string[]) => values.map((v) => ({ value: v, label: v }));

/**
 * `VictimsRecorded` (people issue): the people a source names, one row each. Names, ages,
 * places and notes are sealed by the archive; a name is published only when the row says so
 * (`disclose`), else it is restricted.
 */
export const victimsRecordedForm: DeskForm = {
  slug: "victims",
  type: "VictimsRecorded",
  title: "Record victims",
  blurb: "The people a source names; names are sealed unless published on purpose.",
  role: "writer",
  where: "incident",
  addRow: "Add another person",
  fields: (values) => [
    VICTIMS,
    ...PEOPLE.fields(values),
    ...ATTRIBUTION_FIELDS,
    ...SOURCE_FIELDS,
    "occurredAt",
  ],
  label: PEOPLE.label(labelFrom({ [VICTIMS]: "Victims", "attributedTo.name": "Name of who reported them" })),
  read(values) {
    const read = readEnvelope("VictimsRecorded", values);
    const victims: Record<string, unknown>[] = [];
    const disclose: Record<string, string> = {};
    for (let i = 0; i < rowCount(values); i++) {
      const get = (part: Part) => values.get(row(i, part)) ?? "";
      if (!PARTS.some((p) => p !== "publishName" && get(p).trim() !== "")) continue;
      const victim: Record<string, unknown> = {};
      for (const part of ["name", "ageGroup", "sex", "status", "diedOn", "place", "notes"] as const)
        if (get(part).trim() !== "") victim[part] = get(part);
      if (get("age").trim() !== "") victim.age = readWhole(get("age"), row(i, "age"), read.errors);
      if (get("publishName") === "public" && victim.name !== undefined)
        disclose[`/data/victims/${victims.length}/name`] = "public";
      victims.push(victim);
    }
    // The API's "1–500 victims" names no row: the form says what to do, above the rows.
    if (victims.length === 0)
      read.errors.set(VICTIMS, "must include at least one person: fill in a name, an age or another detail");
    setPath(read.body, ["data", "victims"], victims);
    if (Object.keys(disclose).length > 0) setPath(read.body, ["data", "disclose"], disclose);
    return read;
  },
  fieldFor(path, values) {
    const match = /^data\.victims(?:\[(\d+)\](?:\.(\w+))?)?/.exec(path);
    if (!match) return null;
    // The list itself (no one in it): the people as a whole, not the first row's name.
    if (match[1] === undefined) return VICTIMS;
    const i = filledRows(values)[Number(match[1])] ?? 0;
    const part = match[2] === "ageRange" ? "age" : match[2];
    return row(i, PARTS.includes(part as Part) ? (part as Part) : "name");
  },
  Fields: ({ form }) => {
    return (
      <>
        <input type="hidden" name="rows" value={String(rowCount(form.values))} />
        <FieldGroup form={form} name={VICTIMS}>
          {PEOPLE.each(form.values).map((i) => (
            <fieldset>
              <legend>{`Person ${i + 1}`}</legend>
              <TextField
                form={form}
                name={row(i, "name")}
                label="Name"
                hint="Sealed: shown only to restricted readers."
                optional
                sealed
              />
              <SelectField
                form={form}
                name={row(i, "publishName")}
                label="Who may read the name"
                choices={[
                  { value: "restricted", label: "Restricted readers only" },
                  { value: "public", label: "Everyone (published with consent or already public)" },
                ]}
                optional
              />
              <div class="row">
                <TextField form={form} name={row(i, "age")} label="Age" inputmode="numeric" optional sealed />
                <SelectField
                  form={form}
                  name={row(i, "ageGroup")}
                  label="Age group"
                  choices={choices(AGE_GROUPS)}
                  blank="Not given"
                  optional
                />
              </div>
              <div class="row">
                <SelectField
                  form={form}
                  name={row(i, "sex")}
                  label="Sex"
                  choices={choices(SEXES)}
                  blank="Not given"
                  optional
                />
                <SelectField
                  form={form}
                  name={row(i, "status")}
                  label="Status"
                  choices={choices(VICTIM_STATUSES)}
                  blank="Not given"
                  optional
                />
              </div>
              <TextField
                form={form}
                name={row(i, "diedOn")}
                label="Day of death"
                hint="e.g. 2022-04-08"
                narrow
                optional
              />
              <TextField form={form} name={row(i, "place")} label="Place" optional sealed />
              <TextArea form={form} name={row(i, "notes")} label="Notes" rows={2} optional />
            </fieldset>
          ))}
        </FieldGroup>
        <AttributionFields form={form} legend="Who reported them" />
        <SourceFields form={form} />
        <OccurredAtField form={form} label="When it was reported" />
      </>
    );
  },
};
