import { describe, expect, it } from "vitest";
import { claimAssessedForm } from "./claim-assessed.js";
import { reportRetractedForm } from "./report-retracted.js";
import { statementMadeForm } from "./statement-made.js";

describe("a form's messages name a field by the label it shows", () => {
  it("names the time by what the form records", () => {
    expect(claimAssessedForm.label("occurredAt")).toBe("When it was assessed");
    expect(reportRetractedForm.label("occurredAt")).toBe("When it was retracted");
    expect(statementMadeForm.label("occurredAt")).toBe("When it was said");
  });
});
