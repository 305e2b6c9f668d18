import { CfnOutput } from "aws-cdk-lib";
import * as dynamodb from "aws-cdk-lib/aws-dynamodb";
import * as iam from "aws-cdk-lib/aws-iam";
import { Construct } from "constructs";
import { AUDIT_KEYS, DISCLOSURES_KEYS } from "../functions/store/table-design.js";
import { DurableTable } from "./durable-table.js";
import type { LedgerFunction } from "./ledger-function.js";
import { grantTableActions } from "./table-access.js";

export interface PeopleTablesProps {
  /** The append path: writes disclosures first, withholds and erases them (RedactionApplied). */
  api: LedgerFunction;
  /** The incident pages: read disclosures for the victims list. */
  pages: LedgerFunction;
  /** The data Lambda: it redirects the disclosures export to the exports function (grantExport). */
  data: LedgerFunction;
  /** The issuer whose bearer tokens name a restricted-reader on public GETs (no authorizer runs there). */
  readers: { issuer: string; audience: readonly string[] };
  /** The claim holding the roles (default cognito:groups). */
  groupsClaim?: string;
}

/**
 * The people's tables (functions/people): the sealed values beside the chain, and the audit of
 * restricted reads. Kept like the events (retained, PITR): losing a disclosure loses a victim's
 * name for good. Erasure replaces a value with a tombstone (its pack rewritten): no role
 * here may delete (the orphan sweep alone may, grantOrphanSweep), and point-in-time backups age
 * out after 35 days (docs/explanation/people.md).
 */
export class PeopleTables extends Construct {
  readonly disclosures: dynamodb.Table;
  readonly audit: dynamodb.Table;

  constructor(scope: Construct, id: string, props: PeopleTablesProps) {
    super(scope, id);
    this.disclosures = new DurableTable(this, "DisclosuresTable", {
      partitionKey: { name: DISCLOSURES_KEYS.partitionKey, type: dynamodb.AttributeType.STRING },
      sortKey: { name: DISCLOSURES_KEYS.sortKey, type: dynamodb.AttributeType.STRING },
    });
    this.audit = new DurableTable(this, "AuditTable", {
      partitionKey: { name: AUDIT_KEYS.partitionKey, type: dynamodb.AttributeType.STRING },
      sortKey: { name: AUDIT_KEYS.sortKey, type: dynamodb.AttributeType.STRING },
    });
    for (const fn of [props.api, props.pages, props.data]) {
      fn.function.addEnvironment("DISCLOSURES_TABLE", this.disclosures.tableName);
      fn.function.addEnvironment("AUDIT_TABLE", this.audit.tableName);
    }
    for (const fn of [props.api, props.pages]) {
      fn.function.addEnvironment("READER_JWT_ISSUER", props.readers.issuer);
      fn.function.addEnvironment("READER_JWT_AUDIENCE", props.readers.audience.join(","));
    }
    // Every Lambda that reads roles from a token's claims: the data Lambda's editors (releases)
    // and restricted-readers (evidence bytes) too.
    for (const fn of [props.api, props.pages, props.data])
      fn.function.addEnvironment("GROUPS_CLAIM", props.groupsClaim ?? "cognito:groups");
    // The append path: a conditional put of each pack of fresh disclosures (before the event),
    // reads, a retry's move of a pack's time (UpdateItem, then GetItem), and the two redactions:
    // a pack read (GetItem) and rewritten with the entries redacted (UpdateItem, conditional on
    // its revision), or a first-layout item's visibility set (UpdateItem) or tombstone put.
    grantTableActions(props.api.role, this.disclosures, [
      "dynamodb:Query",
      "dynamodb:GetItem",
      "dynamodb:PutItem",
      "dynamodb:UpdateItem",
    ]);
    // Readers: the disclosures by key, and a record of each restricted read, which they may
    // add but never change (PutItem conditional on absence in the code; no UpdateItem here).
    grantTableActions(props.pages.role, this.disclosures, ["dynamodb:Query", "dynamodb:GetItem"]);
    // The data Lambda records restricted evidence put in a proof bundle.
    for (const fn of [props.api, props.pages, props.data])
      grantTableActions(fn.role, this.audit, ["dynamodb:PutItem"]);
    new CfnOutput(this, "DisclosuresTableName", { value: this.disclosures.tableName });
    new CfnOutput(this, "AuditTableName", { value: this.audit.tableName });
  }

  /**
   * The disclosures export (GET /export/disclosures.ndjson), served in AWS by the exports
   * function as the other exports (the data Lambda redirects there): a scan of this table, and
   * whether each item's event is stored (its claim and commit, through the export reads it has).
   */
  grantExport(fn: LedgerFunction): void {
    fn.function.addEnvironment("DISCLOSURES_TABLE", this.disclosures.tableName);
    grantTableActions(fn.role, this.disclosures, ["dynamodb:Scan"]);
  }
}

/** What the orphan sweep may name in a request: the keys, the event, the time — never a value. */
export const ORPHAN_SWEEP_ATTRIBUTES = ["incidentId", "key", "eventId", "writtenAt"] as const;

/**
 * The orphan disclosures' sweep (functions/people/orphan-sweep.ts, run by the view repair): it
 * scans the table's keys and times, gives a first-layout item a time, and deletes an orphan.
 * The only delete any role has on this table, and the only role with it; its scan and its update
 * may name no attribute but those above (IAM's `dynamodb:Attributes`), so it reads no value and
 * can set a time and nothing else. The scan must also say `Select: SPECIFIC_ATTRIBUTES`
 * (DisclosureStore.itemPages does): a scan that named no attribute would read whole items.
 */
export function grantOrphanSweep(role: iam.IGrantable, disclosures: dynamodb.ITable): void {
  role.grantPrincipal.addToPrincipalPolicy(
    new iam.PolicyStatement({
      actions: ["dynamodb:Scan"],
      resources: [disclosures.tableArn],
      conditions: {
        "ForAllValues:StringEquals": { "dynamodb:Attributes": [...ORPHAN_SWEEP_ATTRIBUTES] },
        StringEquals: { "dynamodb:Select": "SPECIFIC_ATTRIBUTES" },
      },
    }),
  );
  role.grantPrincipal.addToPrincipalPolicy(
    new iam.PolicyStatement({ actions: ["dynamodb:DeleteItem"], resources: [disclosures.tableArn] }),
  );
  role.grantPrincipal.addToPrincipalPolicy(
    new iam.PolicyStatement({
      actions: ["dynamodb:UpdateItem"],
      resources: [disclosures.tableArn],
      conditions: { "ForAllValues:StringEquals": { "dynamodb:Attributes": [...ORPHAN_SWEEP_ATTRIBUTES] } },
    }),
  );
}
