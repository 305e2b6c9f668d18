import { EVIDENCE_KINDS } from "../../../../events/schemas.js";
import {
  AttributionFields,
  FileField,
  Radios,
  SourceFields,
  TextField,
  UploadProgress,
} from "../form-kit.js";
import { readEnvelope } from "../form-read.js";
import { ATTRIBUTION_FIELDS, type DeskForm, labelFrom, SOURCE_FIELDS } from "./desk-form.js";

/** The file input's name; the capture's `sha256`, `size` and `mediaType` come from its bytes. */
export const FILE_FIELD = "file";

const LABELS: Record<string, string> = {
  [FILE_FIELD]: "File",
  "data.kind": "What it is",
  "data.title": "Title",
  "data.sourceUrl": "Captured from",
  "data.capturedAt": "Captured at",
  "data.access": "Who may read it",
  "attributedTo.name": "Name of who captured it",
};

const KIND_LABELS: Record<(typeof EVIDENCE_KINDS)[number], string> = {
  "web-page": "A web page",
  image: "A photo or image",
  video: "A video",
  audio: "A recording",
  document: "A document (PDF, report)",
  post: "A social media post",
  archive: "A web archive (WARC, WACZ)",
};

/** The parts of the capture its bytes give: a problem there is the file's. */
const FROM_FILE = /^data\.(sha256|size|mediaType)$/;

/**
 * `EvidenceCaptured`: a file (photo, PDF, WARC…) uploaded from the browser. Its bytes go through
 * the API's own `POST /evidence` (hashed as they arrive, the same limit and checks), then the
 * capture naming their SHA-256 is appended; a refused form keeps no bytes and stores no event.
 */
export const evidenceCapturedForm: DeskForm = {
  slug: "evidence",
  type: "EvidenceCaptured",
  title: "Attach evidence",
  blurb: "A photo, video, document or web capture the reports rest on, kept by its SHA-256.",
  role: "writer",
  where: "incident",
  upload: FILE_FIELD,
  fields: () => [
    FILE_FIELD,
    "data.kind",
    "data.title",
    "data.sourceUrl",
    "data.capturedAt",
    "data.access",
    ...SOURCE_FIELDS,
    ...ATTRIBUTION_FIELDS,
  ],
  label: labelFrom(LABELS),
  read: (values) => readEnvelope("EvidenceCaptured", values),
  fieldFor: (path) => (FROM_FILE.test(path) ? FILE_FIELD : null),
  initial: () => ({ "data.access": "public" }),
  Fields: ({ form }) => (
    <>
      <fieldset>
        <legend>The evidence</legend>
        <FileField
          form={form}
          name={FILE_FIELD}
          label="File"
          hint="The bytes are kept as they are and named by their SHA-256, computed as they arrive."
        />
        <Radios
          form={form}
          name="data.kind"
          label="What it is"
          choices={EVIDENCE_KINDS.map((kind) => ({ value: kind, label: KIND_LABELS[kind] }))}
        />
        <TextField form={form} name="data.title" label="Title" optional />
        <TextField
          form={form}
          name="data.sourceUrl"
          label="Captured from"
          hint="The web address it was captured from."
          type="url"
          optional
        />
        <TextField
          form={form}
          name="data.capturedAt"
          label="Captured at"
          hint="When it was captured: a date and time with its zone, e.g. 2022-04-08T10:30:00Z."
          narrow
          optional
        />
        <Radios
          form={form}
          name="data.access"
          label="Who may read it"
          choices={[
            { value: "public", label: "Anyone" },
            {
              value: "restricted",
              label: "Restricted readers only",
              hint: "e.g. a photo of a victim: the bytes are served only to the restricted-reader role.",
            },
          ]}
        />
      </fieldset>
      <SourceFields form={form} />
      <AttributionFields form={form} legend="Who captured it" optional />
      <UploadProgress />
    </>
  ),
};
