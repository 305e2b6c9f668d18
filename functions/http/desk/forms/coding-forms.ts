import { attributionAssessedForm } from "./coding/attribution-assessed.js";
import { incidentGradedForm } from "./coding/incident-graded.js";
import { incidentRevisedForm } from "./coding/incident-revised.js";
import { incidentsLinkedForm } from "./coding/incidents-linked.js";
import type { DeskForm } from "./desk-form.js";

/**
 * The editors' forms for the coding issue's event types (IncidentRevised, IncidentGraded,
 * AttributionAssessed, IncidentsLinked). Registered in DESK_FORMS (registry.ts) once those
 * types are in events/schemas.ts: until then the API would refuse them as unknown types.
 */
export const CODING_FORMS: readonly DeskForm[] = [
  incidentRevisedForm,
  incidentGradedForm,
  attributionAssessedForm,
  incidentsLinkedForm,
];
