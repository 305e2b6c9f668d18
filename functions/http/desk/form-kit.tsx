import type { Child, FC } from "hono/jsx";

/**
 * The pieces every desk form is built of. A field's `name` is its place in the posted event
 * (`source.publisher`, `data.quote`), so that a problem's path names its field; its id is made
 * from the name, and the error summary links there.
 *
 * Text a client sent (typed values, names from the archive, a target's words) is bidi-isolated
 * wherever it is shown (CONTRACT.md "Bounds and hostile input"): a control showing it has
 * `dir="auto"`, a label holds each piece in its own <bdi>, and an <option>'s text, which can hold
 * no element, wraps each piece in `isolate` (FSI … PDI, pages/format.ts).
 */

/** What the person typed, field by field, kept exactly (a refused form shows it again). */
export type FormValues = ReadonlyMap<string, string>;
/** Field name → the message shown beside it and in the summary. */
export type FieldMessages = ReadonlyMap<string, string>;

export interface FormState {
  values: FormValues;
  errors: FieldMessages;
  /** Names already used in the archive, offered as suggestions (a `<datalist>`). */
  suggestions: Suggestions;
  /** The field the page opens focused on: the first of a row just added (no script needed). */
  focus?: string;
}

export interface Suggestions {
  /** Who said it: `attributedTo.name` across the archive. */
  speakers: readonly string[];
  /** Where it was published: `source.publisher`. */
  publishers: readonly string[];
}

export const fieldId = (name: string) => `f-${name.replace(/[^A-Za-z0-9]+/g, "-")}`;
const errorId = (name: string) => `${fieldId(name)}-error`;
const hintId = (name: string) => `${fieldId(name)}-hint`;

export const value = (form: FormState, name: string) => form.values.get(name) ?? "";

interface FieldProps {
  form: FormState;
  name: string;
  label: string;
  hint?: string;
  /** Not required: true says "(optional)"; a text says when it is needed instead. */
  optional?: boolean | string;
}

/** A field's hint and its message, with the ids its control is described by. */
const HintAndError: FC<{ name: string; hint?: string | undefined; error?: string | undefined }> = ({
  name,
  hint,
  error,
}) => (
  <>
    {hint ? (
      <p class="field-hint" id={hintId(name)}>
        {hint}
      </p>
    ) : null}
    {error ? (
      <p class="field-error" id={errorId(name)}>
        <span class="visually-hidden">Error: </span>
        {error}
      </p>
    ) : null}
  </>
);

/** The label (marked optional where it is), hint and message, around any control. */
const FieldFrame: FC<FieldProps & { children?: Child; labelFor?: boolean }> = ({
  form,
  name,
  label,
  hint,
  optional,
  children,
}) => {
  const error = form.errors.get(name);
  return (
    <div class={error ? "field has-error" : "field"}>
      <label for={fieldId(name)}>
        {optional ? `${label} (${optional === true ? "optional" : optional})` : label}
      </label>
      <HintAndError name={name} hint={hint} error={error} />
      {children}
    </div>
  );
};

/** aria-describedby and aria-invalid for a control: its hint and its message, read with it. */
function described(form: FormState, name: string, hint?: string) {
  const error = form.errors.get(name);
  const ids = [hint ? hintId(name) : null, error ? errorId(name) : null].filter(Boolean).join(" ");
  return {
    id: fieldId(name),
    name,
    ...(ids ? { "aria-describedby": ids } : {}),
    ...(error ? { "aria-invalid": "true" } : {}),
    ...(form.focus === name ? { autofocus: true } : {}),
  };
}

export const TextField: FC<
  FieldProps & {
    type?: "text" | "url" | "number" | "date";
    list?: string;
    inputmode?: "numeric" | "decimal";
    narrow?: boolean;
    autocomplete?: string;
    /**
     * It may hold a value the archive seals (a victim's name, a private person's): the browser is
     * told not to remember it for other forms. Other fields are left to the browser, which then
     * also puts back what was typed when the person comes back to the form.
     */
    sealed?: boolean;
  }
> = (props) => (
  <FieldFrame {...props}>
    <input
      {...described(props.form, props.name, props.hint)}
      type={props.type === "number" ? "text" : (props.type ?? "text")}
      value={value(props.form, props.name)}
      dir="auto"
      {...(props.list ? { list: props.list } : {})}
      {...(props.inputmode ? { inputmode: props.inputmode } : {})}
      {...(props.narrow ? { class: "narrow" } : {})}
      {...(props.optional ? {} : { "aria-required": "true" })}
      {...(props.type === "url" || props.inputmode ? { spellcheck: false } : {})}
      {...(props.sealed
        ? { autocomplete: "off" }
        : props.autocomplete
          ? { autocomplete: props.autocomplete }
          : {})}
    />
  </FieldFrame>
);

export const TextArea: FC<FieldProps & { rows?: number }> = (props) => (
  <FieldFrame {...props}>
    <textarea
      {...described(props.form, props.name, props.hint)}
      rows={props.rows ?? 4}
      dir="auto"
      {...(props.optional ? {} : { "aria-required": "true" })}
    >
      {value(props.form, props.name)}
    </textarea>
  </FieldFrame>
);

/** A file to upload: a browser never keeps a chosen file, so after a refusal it is chosen again. */
export const FileField: FC<FieldProps & { accept?: string }> = (props) => (
  <FieldFrame {...props}>
    <input
      {...described(props.form, props.name, props.hint)}
      type="file"
      {...(props.accept ? { accept: props.accept } : {})}
      {...(props.optional ? {} : { "aria-required": "true" })}
    />
  </FieldFrame>
);

/**
 * The upload's progress, shown only once the desk's script sends the form itself (upload.js);
 * without it the browser posts the form and shows its own progress.
 */
export const UploadProgress: FC = () => (
  <div class="field" id="upload" hidden>
    <label for="upload-progress">Upload progress</label>
    <progress id="upload-progress" max={100} value={0} aria-describedby="upload-status" />
    <p class="field-hint" id="upload-status" aria-live="polite" />
  </div>
);

/** A choice of a <select>: its label is an <option>'s text, which can hold no <bdi> (`isolate` it). */
export interface Choice {
  value: string;
  label: string;
}

/** A radio's choice: its label is a <label>'s content, client text in it each piece in a <bdi>. */
export interface RadioChoice {
  value: string;
  label: Child;
  hint?: string;
}

export const SelectField: FC<FieldProps & { choices: readonly Choice[]; blank?: string }> = (props) => {
  const current = value(props.form, props.name);
  return (
    <FieldFrame {...props}>
      <select {...described(props.form, props.name, props.hint)}>
        {props.blank !== undefined ? <option value="">{props.blank}</option> : null}
        {props.choices.map((choice) => (
          <option value={choice.value} selected={choice.value === current}>
            {choice.label}
          </option>
        ))}
      </select>
    </FieldFrame>
  );
};

/**
 * Fields that are answered together, with a message of their own (a list that needs at least
 * one row filled in): the summary links to the group, its message is shown above the fields.
 */
export const FieldGroup: FC<{ form: FormState; name: string; children?: Child }> = ({
  form,
  name,
  children,
}) => {
  const error = form.errors.get(name);
  return (
    <div class={error ? "field has-error" : "field"} id={fieldId(name)} tabindex={-1}>
      <HintAndError name={name} error={error} />
      {children}
    </div>
  );
};

/**
 * Checkboxes in a fieldset, each under a name of its own (a form's values hold one value a name):
 * ticked when the form holds its value under its name.
 */
export const Checkboxes: FC<{
  form: FormState;
  id: string;
  legend: Child;
  choices: readonly { name: string; value: string; label: string }[];
}> = ({ form, id, legend, choices }) => (
  <fieldset class="field" id={id}>
    <legend>{legend}</legend>
    <ul class="choices">
      {choices.map((choice, i) => (
        <li>
          <input
            type="checkbox"
            name={choice.name}
            id={`${id}-${i}`}
            value={choice.value}
            checked={form.values.get(choice.name) === choice.value}
          />
          <label for={`${id}-${i}`}>{choice.label}</label>
        </li>
      ))}
    </ul>
  </fieldset>
);

/** Radios in a fieldset whose legend is the question: the message is the fieldset's. */
export const Radios: FC<FieldProps & { choices: readonly RadioChoice[] }> = (props) => {
  const { form, name, label, hint } = props;
  const current = value(form, name);
  const error = form.errors.get(name);
  const ids = [hint ? hintId(name) : null, error ? errorId(name) : null].filter(Boolean).join(" ");
  return (
    <fieldset
      class={error ? "field has-error" : "field"}
      id={fieldId(name)}
      tabindex={-1}
      {...(ids ? { "aria-describedby": ids } : {})}
    >
      <legend>{label}</legend>
      <HintAndError name={name} hint={hint} error={error} />
      <ul class="choices">
        {props.choices.map((choice, i) => (
          <li>
            <input
              type="radio"
              name={name}
              id={`${fieldId(name)}-${i}`}
              value={choice.value}
              checked={choice.value === current}
              {...(choice.hint ? { "aria-describedby": `${fieldId(name)}-${i}-hint` } : {})}
            />
            <label for={`${fieldId(name)}-${i}`}>
              {choice.label}
              {choice.hint ? (
                <span class="field-hint" id={`${fieldId(name)}-${i}-hint`}>
                  {` ${choice.hint}`}
                </span>
              ) : null}
            </label>
          </li>
        ))}
      </ul>
    </fieldset>
  );
};

/**
 * One `<datalist>` per kind of name, printed once per form. A suggestion is an option's value,
 * which is what picking it types into the field: isolating characters there would become part of
 * the name, so each option is isolated by `dir="auto"` instead (it can hold no <bdi>).
 */
export const SuggestionLists: FC<{ suggestions: Suggestions }> = ({ suggestions }) => (
  <>
    <datalist id="speakers">
      {suggestions.speakers.map((name) => (
        <option value={name} dir="auto" />
      ))}
    </datalist>
    <datalist id="publishers">
      {suggestions.publishers.map((name) => (
        <option value={name} dir="auto" />
      ))}
    </datalist>
  </>
);

/** Where the report was published: every event's provenance. */
export const SourceFields: FC<{ form: FormState }> = ({ form }) => (
  <fieldset>
    <legend>Where it was published</legend>
    <TextField
      form={form}
      name="source.publisher"
      label="Publisher"
      hint="The outlet or body that published the report, spelled as elsewhere in the archive."
      list="publishers"
    />
    <TextField form={form} name="source.url" label="Web address" type="url" optional />
    <TextField form={form} name="source.title" label="Headline or title" optional />
    <TextField
      form={form}
      name="source.publishedAt"
      label="Published on"
      hint="A date (2022-04-08) or a date and time with its zone (2022-04-08T18:00:00Z)."
      narrow
      optional
    />
  </fieldset>
);

/** Who said it. Optional only on an incident's opening. */
export const AttributionFields: FC<{ form: FormState; legend?: string; optional?: boolean }> = ({
  form,
  legend,
  optional,
}) => (
  <fieldset>
    <legend>{legend ?? "Who said it"}</legend>
    <TextField
      form={form}
      name="attributedTo.name"
      label="Name"
      hint="A person or a body. Pick a name already used where it is the same speaker."
      list="speakers"
      sealed
      {...(optional ? { optional: true } : {})}
    />
    <TextField form={form} name="attributedTo.role" label="Role or title" optional sealed />
    <TextField form={form} name="attributedTo.side" label="Side" hint="e.g. Ukraine, Russia" optional />
    <SelectField
      form={form}
      name="attributedTo.kind"
      label="Who they are"
      hint="A private person's name and role are sealed: only restricted readers see them, everyone else the pseudonym."
      choices={SPEAKER_KINDS}
      blank="An official or a public body"
      optional
    />
    <TextField
      form={form}
      name="attributedTo.ref"
      label="Pseudonym"
      hint="e.g. witness-A: the same pseudonym for the same person across reports."
      narrow
      optional="needed for a private person"
    />
  </fieldset>
);

/** `attributedTo.kind` as the form offers it; blank is the schema's default, `official`. */
const SPEAKER_KINDS: readonly Choice[] = [
  { value: "organisation", label: "An organisation" },
  { value: "private", label: "A private person (name and role sealed)" },
];

export const OccurredAtField: FC<{ form: FormState; label?: string }> = ({ form, label }) => (
  <TextField
    form={form}
    name="occurredAt"
    label={label ?? "When it was said"}
    hint="A date and time with its zone, e.g. 2022-04-08T09:00:00Z."
    narrow
    optional
  />
);

/** The GOV.UK error summary: first on the page, focused on load, a link to each field. */
export const ErrorSummary: FC<{ errors: FieldMessages; general?: readonly string[] }> = ({
  errors,
  general,
}) =>
  errors.size === 0 && !general?.length ? null : (
    <div class="error-summary" aria-labelledby="error-summary-title" role="alert" tabindex={-1} autofocus>
      <h2 id="error-summary-title">There is a problem</h2>
      <ul>
        {(general ?? []).map((message) => (
          <li>{message}</li>
        ))}
        {[...errors].map(([name, message]) => (
          <li>
            <a href={`#${fieldId(name)}`}>{message}</a>
          </li>
        ))}
      </ul>
    </div>
  );
