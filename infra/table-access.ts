import type * as dynamodb from "aws-cdk-lib/aws-dynamodb";
import * as iam from "aws-cdk-lib/aws-iam";

/**
 * The DynamoDB actions a role of the ledger may be given (batch reads, for the feed). Deletes, batch writes, scans and
 * wildcards are not among them, so no grant can hand them out by accident.
 */
export type TableAction =
  | "dynamodb:GetItem"
  | "dynamodb:BatchGetItem"
  | "dynamodb:Query"
  | "dynamodb:PutItem"
  | "dynamodb:UpdateItem";

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
