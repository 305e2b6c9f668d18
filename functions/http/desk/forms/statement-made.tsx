import {
  AttributionFields,
  OccurredAtField,
  Radios,
  SourceFields,
  TextArea,
  TextField,
} from "../form-kit.js";
import { readEnvelope } from "../form-read.js";
import { ATTRIBUTION_FIELDS, type DeskForm, labelFrom, SOURCE_FIELDS } from "./desk-form.js";

const LABELS: Record<string, string> = {
  "data.quote": "Quote",
  "data.stance": "Stance",
  "data.accuses": "Who it accuses",
  "data.channel": "Channel",
};

const STANCES = [
  { value: "accuses", label: "Accuses someone" },
  { value: "condemns", label: "Condemns" },
  { value: "denies", label: "Denies" },
  { value: "supports", label: "Supports" },
  { value: "neutral", label: "Neutral" },
];

/** `StatementMade`: what someone said, word for word, and its stance. */
export const statementMadeForm: DeskForm = {
  slug: "statement",
  type: "StatementMade",
  title: "Record a statement",
  blurb: "A quote, word for word, with who said it and its stance.",
  role: "writer",
  where: "incident",
  fields: () => [
    ...ATTRIBUTION_FIELDS,
    "data.quote",
    "data.stance",
    "data.accuses",
    "data.channel",
    ...SOURCE_FIELDS,
    "occurredAt",
  ],
  label: labelFrom(LABELS),
  read: (values) => readEnvelope("StatementMade", values),
  Fields: ({ form }) => (
    <>
      <AttributionFields form={form} />
      <fieldset>
        <legend>What was said</legend>
        <TextArea
          form={form}
          name="data.quote"
          label="Quote"
          hint="Word for word, without quotation marks."
        />
        <Radios form={form} name="data.stance" label="Stance" choices={STANCES} />
        <TextField
          form={form}
          name="data.accuses"
          label="Who it accuses"
          hint="The party accused, if it accuses someone."
          list="speakers"
          optional
        />
        <TextField
          form={form}
          name="data.channel"
          label="Channel"
          hint="e.g. social media, press conference"
          optional
        />
      </fieldset>
      <SourceFields form={form} />
      <OccurredAtField form={form} />
    </>
  ),
};
