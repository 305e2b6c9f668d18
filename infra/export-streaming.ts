import { CfnOutput, Duration } from "aws-cdk-lib";
import type * as dynamodb from "aws-cdk-lib/aws-dynamodb";
import type * as iam from "aws-cdk-lib/aws-iam";
import * as lambda from "aws-cdk-lib/aws-lambda";
import { Construct } from "constructs";
import { LedgerFunction } from "./ledger-function.js";
import { grantTableActions } from "./table-access.js";

/** How the exports function runs; the template tests hold the stack to it. */
export const EXPORT_STREAMING = {
  // Lambda's longest run: at the 2 MB/s a streamed response gets past its first 6 MB, up to
  // ≈ 1.8 GB could pass in it, but a streamed response stops at 200 MB first.
  timeout: Duration.minutes(15),
  // The bounded CSV sort keeps runs of 50,000 incidents (a few MB); the rest is the SDK.
  memorySize: 1024,
  // Function URLs have no stage throttling: this caps what a crowd (or a loop) of downloads
  // can cost in Lambda time and in reads of the tables.
  reservedConcurrency: 10,
} as const;

/**
 * What producing an export reads (here and in the builder): leaves, the commits they name, the
 * views a CSV's rows come from (100 a BatchGetItem) with the snapshots and sealed pieces a past
 * summary starts from, and a claim where a fold looks an event up by its client id.
 */
export function grantExportReads(
  grantee: iam.IGrantable,
  tables: Pick<ExportStreamingProps, "eventsTable" | "viewsTable" | "logTable" | "claimsTable">,
): void {
  grantTableActions(grantee, tables.eventsTable, [
    "dynamodb:Query",
    "dynamodb:GetItem",
    "dynamodb:BatchGetItem",
  ]);
  grantTableActions(grantee, tables.viewsTable, ["dynamodb:GetItem", "dynamodb:BatchGetItem"]);
  grantTableActions(grantee, tables.claimsTable, ["dynamodb:GetItem"]);
  grantTableActions(grantee, tables.logTable, ["dynamodb:GetItem", "dynamodb:Query"]);
}

export interface ExportStreamingProps {
  readonly eventsTable: dynamodb.ITable;
  readonly viewsTable: dynamodb.ITable;
  readonly logTable: dynamodb.ITable;
  readonly claimsTable: dynamodb.ITable;
  readonly environment: Record<string, string>;
}

/**
 * The exports in AWS. API Gateway's HTTP API buffers a Lambda's answer (6 MB, 30 s), so the
 * exports are served by a function of their own through a function URL in RESPONSE_STREAM
 * mode (200 MB and 15 minutes a response, memory bounded by the export's own streaming); the
 * API checks the query, pins the tree size and redirects there (EXPORTS_URL), so that one URL
 * works with `curl -L`. The function only reads: the log's leaves and checkpoint, the commits
 * the leaves name, and the snapshots a past summary starts from.
 */
export class ExportStreaming extends Construct {
  readonly fn: LedgerFunction;
  readonly url: lambda.FunctionUrl;

  constructor(scope: Construct, id: string, props: ExportStreamingProps) {
    super(scope, id);
    this.fn = new LedgerFunction(this, "Exports", {
      entry: "functions/lambda/exports.ts",
      description: "incident-ledger exports (events.ndjson, incidents.csv), streamed",
      environment: { ...props.environment, LOG_TABLE: props.logTable.tableName },
      timeout: EXPORT_STREAMING.timeout,
      memorySize: EXPORT_STREAMING.memorySize,
      reservedConcurrentExecutions: EXPORT_STREAMING.reservedConcurrency,
    });
    grantExportReads(this.fn.role, props);

    // Public like every read: the exports are published evidence, the same bytes for a tree size.
    this.url = this.fn.function.addFunctionUrl({
      authType: lambda.FunctionUrlAuthType.NONE,
      invokeMode: lambda.InvokeMode.RESPONSE_STREAM,
      cors: { allowedOrigins: ["*"], allowedMethods: [lambda.HttpMethod.GET] },
    });
    new CfnOutput(this, "Url", {
      value: this.url.url,
      description: "Where /export/* is streamed from (the API redirects there)",
    });
  }
}
