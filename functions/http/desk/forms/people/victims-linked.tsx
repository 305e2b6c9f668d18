import { isolate, sealedValueText, sourceName } from "../../../pages/format.js";
import { AttributionFields, type Choice, Radios, SelectField, SourceFields } from "../../form-kit.js";
import { readEnvelope, setPath } from "../../form-read.js";
import {
  ATTRIBUTION_FIELDS,
  type DeskForm,
  type FormContext,
  labelFrom,
  openedKey,
  SOURCE_FIELDS,
} from "../desk-form.js";

/** Only the fields a victim entry shows every reader (names, ages, places are sealed). */
const PUBLIC_PARTS = ["ageGroup", "sex", "status", "diedOn"] as const;

/**
 * The incident's victim entries, `eventId#index`, labelled by their public fields, and by their
 * name where this reader may see it (`opened`); not those of a retracted report, which no longer
 * count and cannot be linked. A label is an <option>'s text, which can hold no <bdi>: who
 * reported it and the name (the client's words) are isolated with FSI … PDI instead; the public
 * fields are the schema's words and a date.
 */
export function victimEntries({ events, summary, opened }: FormContext): Choice[] {
  const retracted = new Set([
    ...(summary?.retractedEventIds ?? []),
    ...events.flatMap((e) =>
      e.type === "ReportRetracted" ? [String((e.data as { targetEventId?: unknown }).targetEventId)] : [],
    ),
  ]);
  return events
    .filter((e) => e.type === "VictimsRecorded" && !retracted.has(e.eventId))
    .flatMap((e) => {
      const victims = ((e.data as { victims?: unknown[] }).victims ?? []) as Record<string, unknown>[];
      return victims.map((v, index) => {
        const known = PUBLIC_PARTS.flatMap((p) => (typeof v[p] === "string" ? [String(v[p])] : []));
        // A private reporter's name is sealed (a commitment, not text): their pseudonym instead.
        const who = isolate(e.attributedTo ? sourceName(e.attributedTo) : e.source.publisher);
        const name = opened?.get(openedKey(e.eventId, `/data/victims/${index}/name`));
        const named = name === undefined ? "" : `: ${isolate(sealedValueText(name))}`;
        return {
          value: `${e.eventId}#${index}`,
          label: `v${e.version} · ${who} · person ${index + 1}${named}${known.length ? ` (${known.join(", ")})` : ""}`,
        };
      });
    });
}

const ref = (value: string | undefined) => {
  const match = /^([A-Za-z0-9_-]{8,64})#(\d{1,3})$/.exec(value ?? "");
  return match ? { eventId: match[1], index: Number(match[2]) } : undefined;
};

/** `VictimsLinked` (people issue): two entries are, or are not, the same person. */
export const victimsLinkedForm: DeskForm = {
  slug: "victims-link",
  type: "VictimsLinked",
  title: "Link two victim entries",
  blurb: "Two sources' entries are the same person — or are not.",
  role: "writer",
  where: "incident",
  fields: () => [
    "data.a",
    "data.b",
    "data.relation",
    "data.certainty",
    ...ATTRIBUTION_FIELDS,
    ...SOURCE_FIELDS,
  ],
  label: labelFrom({
    "data.a": "First entry",
    "data.b": "Second entry",
    "data.relation": "Relation",
    "data.certainty": "Certainty",
    "attributedTo.name": "Name of who linked them",
  }),
  offered: (context: FormContext) => victimEntries(context).length > 1,
  namesPeople: true,
  read: (values) => {
    const read = readEnvelope("VictimsLinked", values, { skip: (n) => n === "data.a" || n === "data.b" });
    for (const side of ["a", "b"] as const) {
      const chosen = ref(values.get(`data.${side}`));
      if (chosen) setPath(read.body, ["data", side], chosen);
    }
    return read;
  },
  fieldFor: (path) => (/^data\.[ab](\.|$)/.test(path) ? path.slice(0, 6) : null),
  Fields: ({ form, context }) => {
    const entries = victimEntries(context);
    return (
      <>
        <SelectField form={form} name="data.a" label="First entry" choices={entries} blank="Choose…" />
        <SelectField form={form} name="data.b" label="Second entry" choices={entries} blank="Choose…" />
        <Radios
          form={form}
          name="data.relation"
          label="Relation"
          choices={[
            { value: "same-person", label: "The same person" },
            { value: "not-same-person", label: "Not the same person" },
          ]}
        />
        <Radios
          form={form}
          name="data.certainty"
          label="Certainty"
          choices={[
            { value: "low", label: "Low" },
            { value: "medium", label: "Medium" },
            { value: "high", label: "High" },
          ]}
        />
        <AttributionFields form={form} legend="Who linked them" />
        <SourceFields form={form} />
      </>
    );
  },
};
