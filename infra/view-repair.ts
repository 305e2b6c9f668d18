import { Duration, Validations } from "aws-cdk-lib";
import * as cloudwatch from "aws-cdk-lib/aws-cloudwatch";
import type * as dynamodb from "aws-cdk-lib/aws-dynamodb";
import * as events from "aws-cdk-lib/aws-events";
import * as targets from "aws-cdk-lib/aws-events-targets";
import { Construct } from "constructs";
import { LedgerFunction } from "./ledger-function.js";
import { grantOrphanSweep } from "./people-tables.js";
import { grantEditorialIndex, grantTableActions } from "./table-access.js";

/** How often the sweep runs: each run scans the events and views tables (projected) once. */
export const VIEW_REPAIR_SCHEDULE = Duration.hours(1);
/** Lambda's longest: a run reads every commit's head, so its time grows with the table. */
export const VIEW_REPAIR_TIMEOUT = Duration.minutes(15);

export interface ViewRepairProps {
  readonly eventsTable: dynamodb.ITable;
  readonly viewsTable: dynamodb.ITable;
  /** The finding index: a re-projection brings the incident's entries forward too. */
  readonly searchTable?: dynamodb.ITable;
  /**
   * The orphan disclosures' sweep after each repair (functions/people/orphan-sweep.ts): the
   * disclosures table, and the claims through which it asks whether an item's event is stored.
   */
  readonly people?: { readonly disclosuresTable: dynamodb.ITable; readonly claimsTable: dynamodb.ITable };
  readonly environment: Record<string, string>;
}

/**
 * The view-repair sweep (`functions/lambda/view-repair.ts`, the same code as `npm run
 * rebuild`): on a schedule, it re-projects every incident whose view lags its head — the
 * incidents whose stream records the projector gave up on (they sit in the failure queue as
 * metadata only, which names no incident). It may read every commit and view, and write views;
 * it never writes claims, and nothing else may scan or batch-write. Then it removes orphan
 * disclosures (written before an append that failed, past the writer deadline): it reads the
 * disclosures' keys and times, and may delete an item or set its time, never read a value out
 * of the table into a log.
 */
export class ViewRepair extends Construct {
  readonly fn: LedgerFunction;
  readonly schedule: events.Rule;

  constructor(scope: Construct, id: string, props: ViewRepairProps) {
    super(scope, id);
    this.fn = new LedgerFunction(this, "Sweep", {
      entry: "functions/lambda/view-repair.ts",
      description: "incident-ledger view repair (re-projects views that lag their events)",
      environment: props.environment,
      timeout: VIEW_REPAIR_TIMEOUT,
      memorySize: 1024,
    });
    grantTableActions(this.fn.role, props.eventsTable, ["dynamodb:Scan", "dynamodb:Query"]);
    grantTableActions(this.fn.role, props.viewsTable, [
      "dynamodb:Scan",
      "dynamodb:GetItem",
      "dynamodb:PutItem",
      "dynamodb:BatchWriteItem",
      // The sealed pieces a lagging view's fold may need (ViewStore.getPieces).
      "dynamodb:BatchGetItem",
    ]);
    // The entries of the links and attributions it folds (functions/editorial).
    grantEditorialIndex(this.fn.role, props.viewsTable);
    if (props.people) {
      this.fn.function.addEnvironment("DISCLOSURES_TABLE", props.people.disclosuresTable.tableName);
      grantOrphanSweep(this.fn.role, props.people.disclosuresTable);
      // …after asking whether its event is stored: the event's claim, then the commit it names.
      grantTableActions(this.fn.role, props.people.claimsTable, ["dynamodb:GetItem"]);
      grantTableActions(this.fn.role, props.eventsTable, ["dynamodb:GetItem"]);
    }
    if (props.searchTable) {
      grantTableActions(this.fn.role, props.searchTable, [
        "dynamodb:GetItem",
        "dynamodb:PutItem",
        "dynamodb:BatchWriteItem",
      ]);
    }
    Validations.of(this.fn.role).acknowledge({
      id: "AwsSolutions-IAM5[Resource::*]",
      reason:
        "X-Ray's PutTraceSegments/PutTelemetryRecords have no resource-level permissions; every " +
        "DynamoDB data action is granted on the two named tables only.",
    });
    this.schedule = new events.Rule(this, "Schedule", {
      description: "Re-project incident-ledger views that lag their events",
      schedule: events.Schedule.rate(VIEW_REPAIR_SCHEDULE),
      targets: [new targets.LambdaFunction(this.fn.function, { retryAttempts: 2 })],
    });
  }

  /**
   * Runs that finished without an error, per schedule period: invocations less errors (a
   * timeout is an error too). No invocation at all publishes no data, which an alarm on this
   * must count as breaching.
   */
  metricFinishedRuns(): cloudwatch.IMetric {
    const period = VIEW_REPAIR_SCHEDULE;
    return new cloudwatch.MathExpression({
      expression: "invocations - FILL(errors, 0)",
      usingMetrics: {
        invocations: this.fn.function.metricInvocations({ period, statistic: cloudwatch.Stats.SUM }),
        errors: this.fn.function.metricErrors({ period, statistic: cloudwatch.Stats.SUM }),
      },
      period,
      label: "view-repair runs finished",
    });
  }
}
