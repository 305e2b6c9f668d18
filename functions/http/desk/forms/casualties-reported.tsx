import { WELL_KNOWN_CATEGORIES } from "../../../../events/schemas.js";
import { categoryHeading } from "../../pages/format.js";
import { AttributionFields, OccurredAtField, SelectField, SourceFields, TextField } from "../form-kit.js";
import { readEnvelope, readWhole, setPath } from "../form-read.js";
import { ATTRIBUTION_FIELDS, type DeskForm, labelFrom, SOURCE_FIELDS } from "./desk-form.js";
import { formRows } from "./form-rows.js";

/** How a figure was given: every Figure form of the contract. */
export const FIGURE_FORMS = [
  { value: "exact", label: "Exactly a number" },
  { value: "at-least", label: "At least a number" },
  { value: "at-most", label: "At most a number" },
  { value: "about", label: "About a number" },
  { value: "range", label: "Between two numbers" },
  { value: "dozens", label: "Dozens (no number given)" },
  { value: "hundreds", label: "Hundreds (no number given)" },
] as const;

const CATEGORY_CHOICES = [
  ...WELL_KNOWN_CATEGORIES.map((c) => ({ value: c, label: categoryHeading(c) })),
  { value: "other", label: "Another category (name it below)" },
];

const PARTS = ["category", "other", "form", "value", "min", "max", "text"] as const;
/** Two rows at first; "Add another category" adds one (no script needed). */
const FIGURES = formRows({
  prefix: "figures",
  parts: PARTS,
  noun: "Figure",
  first: 2,
  labels: {
    category: "category",
    other: "other category",
    form: "how it was given",
    value: "number",
    min: "from",
    max: "to",
    text: "words as reported",
  },
});
const row = FIGURES.name;
const rowCount = FIGURES.count;

const categoryOf = (values: ReadonlyMap<string, string>, i: number) => {
  const chosen = values.get(row(i, "category")) ?? "";
  return chosen === "other" ? (values.get(row(i, "other")) ?? "").trim() : chosen;
};

/** `CasualtiesReported`: several categories in one report, each in any Figure form, with its words. */
export const casualtiesReportedForm: DeskForm = {
  slug: "casualties",
  type: "CasualtiesReported",
  title: "Report casualty figures",
  blurb: "Killed, injured, missing… as one source gave them, in their words.",
  role: "writer",
  where: "incident",
  addRow: "Add another category",
  fields: (values) => [...FIGURES.fields(values), ...SOURCE_FIELDS, ...ATTRIBUTION_FIELDS, "occurredAt"],
  label: FIGURES.label(labelFrom({})),
  read(values) {
    const read = readEnvelope("CasualtiesReported", values);
    const figures: Record<string, unknown> = {};
    const seen = new Map<string, number>();
    for (let i = 0; i < rowCount(values); i++) {
      const get = (part: (typeof PARTS)[number]) => values.get(row(i, part)) ?? "";
      const filled = PARTS.some((p) => get(p).trim() !== "");
      if (!filled) continue;
      const category = categoryOf(values, i);
      const categoryField = get("category") === "other" ? row(i, "other") : row(i, "category");
      if (category === "") read.errors.set(categoryField, "is required: choose what the figure counts");
      else if (seen.has(category))
        read.errors.set(categoryField, `is given in figure ${(seen.get(category) as number) + 1} too`);
      const form = get("form");
      const figure: Record<string, unknown> = {};
      const whole = (part: "value" | "min" | "max") => {
        if (get(part).trim() !== "") figure[part] = readWhole(get(part), row(i, part), read.errors);
      };
      // A number typed where the chosen form takes none is refused, never dropped: what the
      // source said may be in it.
      const unused = (part: "value" | "min" | "max", why: string) => {
        if (get(part).trim() !== "") read.errors.set(row(i, part), why);
      };
      if (form === "range") {
        for (const part of ["min", "max"] as const)
          if (get(part).trim() === "") read.errors.set(row(i, part), "is required for between two numbers");
          else whole(part);
        unused("value", "is for one number: for between two numbers give From and To");
      } else if (form === "dozens" || form === "hundreds") {
        figure.qualifier = form;
        for (const part of ["value", "min", "max"] as const)
          unused(part, `must be empty for ${form} (no number given): choose "About a number" to keep it`);
      } else if (form === "") read.errors.set(row(i, "form"), "is required: choose how the figure was given");
      else {
        figure.qualifier = form;
        whole("value");
        for (const part of ["min", "max"] as const) unused(part, "is for between two numbers only");
      }
      if (get("text").trim() !== "") figure.text = get("text");
      if (category !== "" && !seen.has(category)) {
        seen.set(category, i);
        setPath(figures, [category], figure);
      }
    }
    setPath(read.body, ["data", "figures"], figures);
    return read;
  },
  fieldFor(path, values) {
    const match = /^data\.figures(?:\.([^.]+)(?:\.(\w+))?)?/.exec(path);
    if (!match) return null;
    const [, category, part] = match;
    if (category === undefined) return row(0, "category");
    const rows = rowCount(values);
    for (let i = 0; i < rows; i++) {
      if (categoryOf(values, i) !== category) continue;
      const which = values.get(row(i, "category")) === "other" ? "other" : "category";
      if (part === undefined) return row(i, which);
      if (part === "qualifier") return row(i, "form");
      if (part === "value" || part === "min" || part === "max" || part === "text") return row(i, part);
      return row(i, "form");
    }
    return row(0, "category");
  },
  Fields: ({ form }) => {
    return (
      <>
        <input type="hidden" name="rows" value={String(rowCount(form.values))} />
        {FIGURES.each(form.values).map((i) => (
          <fieldset>
            <legend>{`Figure ${i + 1}`}</legend>
            <div class="row">
              <SelectField
                form={form}
                name={row(i, "category")}
                label="What it counts"
                choices={CATEGORY_CHOICES}
                blank={i === 0 ? "Choose…" : "None (leave this row empty)"}
              />
              <TextField
                form={form}
                name={row(i, "other")}
                label="Other category"
                hint="One word, or words run together each after the first with a capital: hospitalised, peopleDisplaced"
                optional
              />
            </div>
            <div class="row">
              <SelectField
                form={form}
                name={row(i, "form")}
                label="How it was given"
                choices={FIGURE_FORMS}
                blank="Choose…"
              />
              <TextField
                form={form}
                name={row(i, "value")}
                label="Number"
                hint="For exactly, at least, at most, about"
                inputmode="numeric"
                optional
              />
            </div>
            <div class="row">
              <TextField
                form={form}
                name={row(i, "min")}
                label="From"
                hint="For between: the lower number"
                inputmode="numeric"
                optional
              />
              <TextField
                form={form}
                name={row(i, "max")}
                label="To"
                hint="For between: the higher number"
                inputmode="numeric"
                optional
              />
            </div>
            <TextField
              form={form}
              name={row(i, "text")}
              label="Words as reported"
              hint="Exactly as the source put it, e.g. “many dozens more were wounded”"
              optional
            />
          </fieldset>
        ))}
        <SourceFields form={form} />
        <AttributionFields form={form} />
        <OccurredAtField form={form} />
      </>
    );
  },
};

/** The form asks for another row: the desk shows it again with one more, storing nothing. */
export const ADD_ROW = "add-row";
