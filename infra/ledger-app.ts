import { App, type AppProps, Validations } from "aws-cdk-lib";
import { AwsSolutionsChecks } from "cdk-nag";
import { LedgerStack } from "./ledger-stack.js";

/** The stack's id, hence its CloudFormation name: `npx cdk deploy IncidentLedger`. */
export const STACK_ID = "IncidentLedger";

/**
 * The CDK app: the ledger stack, checked by cdk-nag's AwsSolutions pack on every synth.
 * A finding that is not acknowledged (with its reason, next to the resource) fails the synth.
 * Shared by `infra/app.ts` and the tests, so the tests check the app that is deployed.
 */
export function createLedgerApp(props?: AppProps): { app: App; stack: LedgerStack } {
  const app = new App(props);
  const stack = new LedgerStack(app, STACK_ID, {
    description: "incident-ledger: event-sourced archive of reports about conflict incidents",
  });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return { app, stack };
}
