import { RemovalPolicy } from "aws-cdk-lib";
import * as dynamodb from "aws-cdk-lib/aws-dynamodb";
import type { Construct } from "constructs";

export type DurableTableProps = Pick<dynamodb.TableProps, "partitionKey" | "sortKey" | "stream">;

/**
 * A DynamoDB table that outlives mistakes: the archive's tables hold evidence (events) or
 * what guards it (claims), so none of them may vanish with a stack, a rename or a typo.
 *
 * - on-demand: no capacity to plan, nothing to pay at rest but storage;
 * - point-in-time recovery: any second of the last 35 days can be restored;
 * - deletion protection: DeleteTable fails until someone turns it off on purpose;
 * - RETAIN on removal *and* replacement: CloudFormation leaves the table behind rather than
 *   delete it, also when a key change would make it create a new one;
 * - AWS-managed KMS key: encrypted at rest, with key use visible in CloudTrail, and no key
 *   of ours to lose.
 */
export class DurableTable extends dynamodb.Table {
  constructor(scope: Construct, id: string, props: DurableTableProps) {
    super(scope, id, {
      ...props,
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
      encryption: dynamodb.TableEncryption.AWS_MANAGED,
    });
  }
}
