import type { DeskForm } from "./desk-form.js";
import { redactionAppliedForm } from "./people/redaction-applied.js";
import { victimsRecordedForm } from "./people/victims-recorded.js";

/**
 * The people issue's forms (VictimsRecorded for writers, RedactionApplied for editors).
 * Registered in DESK_FORMS (registry.ts) once those types are in events/schemas.ts.
 * VictimsLinked (pairs of victim entries) has no form yet.
 */
export const PEOPLE_FORMS: readonly DeskForm[] = [victimsRecordedForm, redactionAppliedForm];
