import { type FormState, TextArea, TextField } from "./form-kit.js";

/** `POST /releases` from the desk: an editor names the latest checkpoint. */
export const ReleaseFields = ({ form }: { form: FormState }) => (
  <>
    <TextField
      form={form}
      name="name"
      label="Release name"
      hint="1–100 characters of letters, digits, dots, dashes and underscores, e.g. 2026-12-01"
      narrow
    />
    <TextArea form={form} name="note" label="Note" hint="What this release is for." optional rows={2} />
  </>
);

export const releaseFieldFor = (path: string) => (path === "name" || path === "note" ? path : null);
export const releaseLabel = (field: string) => (field === "name" ? "Release name" : "Note");
