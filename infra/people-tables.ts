import { CfnOutput } from "aws-cdk-lib";
import * as dynamodb from "aws-cdk-lib/aws-dynamodb";
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
  /** The disclosures export: a scan of the disclosures table. */
  data: LedgerFunction;
  /** The issuer whose bearer tokens name a restricted-reader on public GETs (no authorizer runs there). */
  readers: { issuer: string; audience: readonly string[] };
  /** The claim holding the roles (default cognito:groups). */
  groupsClaim?: string;
}

/**
 * The people's tables (functions/people): the sealed values beside the chain, and the audit of
 * restricted reads. Kept like the events (retained, PITR): losing a disclosure loses a victim's
 * name for good. Erasure replaces an item with a tombstone (a PutItem): no role here may delete,
 * and point-in-time backups age out after 35 days (docs/explanation/people.md).
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
      fn.function.addEnvironment("GROUPS_CLAIM", props.groupsClaim ?? "cognito:groups");
    }
    // The append path: batch puts of fresh disclosures (before the event), reads, and the two
    // redactions (withheld: UpdateItem of the visibility; erased: a tombstone put over the item).
    grantTableActions(props.api.role, this.disclosures, [
      "dynamodb:Query",
      "dynamodb:GetItem",
      "dynamodb:PutItem",
      "dynamodb:BatchWriteItem",
      "dynamodb:UpdateItem",
    ]);
    // Readers: the disclosures by key, and a record of each restricted read, which they may
    // add but never change (PutItem conditional on absence in the code; no UpdateItem here).
    grantTableActions(props.pages.role, this.disclosures, ["dynamodb:Query", "dynamodb:GetItem"]);
    grantTableActions(props.api.role, this.audit, ["dynamodb:PutItem"]);
    grantTableActions(props.pages.role, this.audit, ["dynamodb:PutItem"]);
    // The export reads the public disclosures across incidents: a scan of this table alone.
    grantTableActions(props.data.role, this.disclosures, ["dynamodb:Scan"]);
    new CfnOutput(this, "DisclosuresTableName", { value: this.disclosures.tableName });
    new CfnOutput(this, "AuditTableName", { value: this.audit.tableName });
  }
}
