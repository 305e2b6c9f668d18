import type * as dynamodb from "aws-cdk-lib/aws-dynamodb";
import * as iam from "aws-cdk-lib/aws-iam";
import { EDITORIAL_INDEX_SUFFIXES } from "../functions/store/table-design.js";

/**
 * The DynamoDB actions a role of the ledger may be given. Deletes and wildcards are not among
 * them, so no grant can hand them out by accident. Batch reads serve the feed, the listing's
 * summaries and a batch's claims; scans are for the view-repair sweep (and the disclosures
 * export), batch writes for the sweep's views and the projector's finding index. The stack's
 * template tests hold each role to its list, and the bundle tests run each role's bundle
 * against a store that refuses what its policies do not grant (test/support/role-store.ts).
 */
export type TableAction =
  | "dynamodb:GetItem"
  | "dynamodb:BatchGetItem"
  | "dynamodb:Query"
  | "dynamodb:PutItem"
  | "dynamodb:UpdateItem"
  | "dynamodb:Scan"
  | "dynamodb:BatchWriteItem";

/**
 * Grants exactly these actions on exactly this table and the named indexes.
 *
 * Why not `table.grant(...)`: once a table has an index, CDK adds `<table>/index/*` to every
 * grant, so a `PutItem` on the views table would come with a wildcard resource it can never
 * use. Naming the index keeps each statement as narrow as what the code does with it.
 */
export function grantTableActions(
  grantee: iam.IGrantable,
  table: dynamodb.ITable,
  actions: readonly TableAction[],
  indexNames: readonly string[] = [],
): iam.Grant {
  return iam.Grant.addToPrincipal({
    grantee,
    actions: [...actions],
    resourceArns: [table.tableArn, ...indexNames.map((name) => `${table.tableArn}/index/${name}`)],
  });
}

/**
 * PutItem on the views table for the items whose key ends in `#chain-check` only (the record
 * of a passed full /verify, which the incident page continues from): the API may write no view
 * or snapshot. The record is a convenience for the page, which shows its version and time;
 * /verify never reads it, so the full re-check stays independent of anything written here.
 */
export function grantChainCheckRecords(grantee: iam.IGrantable, views: dynamodb.ITable): iam.Grant {
  return iam.Grant.addToPrincipal({
    grantee,
    actions: ["dynamodb:PutItem"],
    resourceArns: [views.tableArn],
    conditions: { "ForAllValues:StringLike": { "dynamodb:LeadingKeys": ["*#chain-check"] } },
  });
}

/**
 * UpdateItem on the views table for the editorial index only (functions/editorial): the
 * projector sets one entry of an index item per link or attribution it folds (its own
 * `#links-out` and `#attributions`, the other incident's `#links-in`), and may update no view or
 * snapshot.
 */
export function grantEditorialIndex(grantee: iam.IGrantable, views: dynamodb.ITable): iam.Grant {
  return iam.Grant.addToPrincipal({
    grantee,
    actions: ["dynamodb:UpdateItem"],
    resourceArns: [views.tableArn],
    conditions: {
      "ForAllValues:StringLike": { "dynamodb:LeadingKeys": EDITORIAL_INDEX_SUFFIXES.map((s) => `*${s}`) },
    },
  });
}
