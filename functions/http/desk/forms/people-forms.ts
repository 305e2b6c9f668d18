import type { DeskForm } from "./desk-form.js";
import { redactionAppliedForm } from "./people/redaction-applied.js";
import { victimsLinkedForm } from "./people/victims-linked.js";
import { victimsRecordedForm } from "./people/victims-recorded.js";

/**
 * The people issue's forms (VictimsRecorded and VictimsLinked for writers, RedactionApplied
 * for editors). Registered in DESK_FORMS (registry.ts) once those types are in events/schemas.ts.
 */
export const PEOPLE_FORMS: readonly DeskForm[] = [
  victimsRecordedForm,
  victimsLinkedForm,
  redactionAppliedForm,
];
