import { casualtiesReportedForm } from "./casualties-reported.js";
import { claimAssessedForm } from "./claim-assessed.js";
import { attributionAssessedForm } from "./coding/attribution-assessed.js";
import { incidentGradedForm } from "./coding/incident-graded.js";
import { incidentRevisedForm } from "./coding/incident-revised.js";
import { incidentsLinkedForm } from "./coding/incidents-linked.js";
import { denialIssuedForm } from "./denial-issued.js";
import type { DeskForm } from "./desk-form.js";
import { evidenceCapturedForm } from "./evidence-captured.js";
import { incidentOpenedForm } from "./incident-opened.js";
import { redactionAppliedForm } from "./people/redaction-applied.js";
import { victimsLinkedForm } from "./people/victims-linked.js";
import { victimsRecordedForm } from "./people/victims-recorded.js";
import { reportRetractedForm } from "./report-retracted.js";
import { statementMadeForm } from "./statement-made.js";

/**
 * Every form of the desk, in the order the incident page offers them. A form for a new event
 * type is one module (see desk-form.ts) and one line here.
 */
export const DESK_FORMS: readonly DeskForm[] = [
  incidentOpenedForm,
  casualtiesReportedForm,
  statementMadeForm,
  denialIssuedForm,
  claimAssessedForm,
  reportRetractedForm,
  evidenceCapturedForm,
  victimsRecordedForm,
  victimsLinkedForm,
  redactionAppliedForm,
  incidentRevisedForm,
  incidentGradedForm,
  attributionAssessedForm,
  incidentsLinkedForm,
];
