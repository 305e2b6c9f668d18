// The entry point `cdk synth` / `cdk deploy` run (see cdk.json). Environment-agnostic: no
// account or region is looked up, so synth needs no credentials and no network.
import { createLedgerApp } from "./ledger-app.js";

createLedgerApp().app.synth();
