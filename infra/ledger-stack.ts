import { CfnOutput, Duration, Stack, type StackProps, Validations } from "aws-cdk-lib";
import * as apigw from "aws-cdk-lib/aws-apigateway";
import {
  HttpApi,
  HttpMethod,
  HttpNoneAuthorizer,
  HttpStage,
  LogGroupLogDestination,
} from "aws-cdk-lib/aws-apigatewayv2";
import { HttpJwtAuthorizer } from "aws-cdk-lib/aws-apigatewayv2-authorizers";
import { HttpLambdaIntegration } from "aws-cdk-lib/aws-apigatewayv2-integrations";
import * as cloudwatch from "aws-cdk-lib/aws-cloudwatch";
import * as cwActions from "aws-cdk-lib/aws-cloudwatch-actions";
import * as dynamodb from "aws-cdk-lib/aws-dynamodb";
import * as lambda from "aws-cdk-lib/aws-lambda";
import { DynamoEventSource, SqsDlq } from "aws-cdk-lib/aws-lambda-event-sources";
import * as logs from "aws-cdk-lib/aws-logs";
import * as sns from "aws-cdk-lib/aws-sns";
import * as subscriptions from "aws-cdk-lib/aws-sns-subscriptions";
import * as sqs from "aws-cdk-lib/aws-sqs";
import type { Construct } from "constructs";
import { COMMIT_SHARD_INDEX } from "../functions/store/commit-shard.js";
import {
  ACTIVITY_INDEX,
  ACTIVITY_INDEX_ATTRIBUTES,
  CLAIMS_KEYS,
  COMMIT_ITEM_TYPE,
  COMMIT_TIME_INDEX,
  EVENTS_KEYS,
  SEARCH_KEYS,
  VIEWS_KEYS,
} from "../functions/store/table-design.js";
import { Desk } from "./desk.js";
import { DurableTable } from "./durable-table.js";
import { EvidenceBucket } from "./evidence-bucket.js";
import { ExportHandOff } from "./export-hand-off.js";
import { ExportStreaming } from "./export-streaming.js";
import { LedgerFunction } from "./ledger-function.js";
import { PeopleTables } from "./people-tables.js";
import { grantChainCheckRecords, grantEditorialIndex, grantTableActions } from "./table-access.js";
import { logOriginFrom, TransparencyLog } from "./transparency-log.js";
import { VIEW_REPAIR_TIMEOUT, ViewRepair } from "./view-repair.js";
import { type WriterIdentity, WriterPool, writerIdentityFromContext } from "./writers.js";

/** Context `legacyCommitIndex=true`: keep the unsharded `byCommitTime` index (an upgrade's first deploy). */
export const LEGACY_COMMIT_INDEX_CONTEXT = "legacyCommitIndex";

/** Routes anyone may call: the archive is published evidence. */
export const PUBLIC_GET_PATHS = [
  "/health",
  "/incidents",
  "/incidents/{incidentId}",
  "/incidents/{incidentId}/events",
  "/incidents/{incidentId}/verify",
  "/sources/{name}",
  // The app's own problem+json 404 for unknown paths.
  "/{proxy+}",
] as const;
/**
 * The transparency log, the feed, the exports, the releases and /openapi.json: public reads
 * served by a Lambda of their own (functions/lambda/data.ts), so that the API Lambda carries
 * neither their code, nor the KMS client, nor the OpenAPI document.
 */
export const DATA_GET_PATHS = [
  "/openapi.json",
  "/log/{proxy+}",
  "/incidents/{incidentId}/events/{eventId}/proof",
  "/feed",
  "/export/{name}",
  "/releases",
  "/releases/{name}",
] as const;
/** The pages people read, public too, served by a Lambda of their own (functions/lambda/pages.ts). */
export const PAGE_PATHS = [
  "/",
  "/docs",
  "/codebook",
  "/view/{incidentId}",
  "/map",
  "/source/{name}",
] as const;
/** The one write route; it needs a writer's JWT. */
export const WRITE_PATH = "/incidents/{incidentId}/events";
/** Naming the current checkpoint as a release is a write too: a writer's JWT, like an append. */
export const RELEASE_PATH = "/releases";

/**
 * Default stage throttling. Far below the account's 10,000 req/s so that a runaway script
 * costs little, and far above what a newsroom of writers and readers needs.
 */
export const API_THROTTLE = { rateLimit: 100, burstLimit: 200 } as const;

/** The projector's stream settings; the template tests hold the stack to them. */
export const PROJECTOR_STREAM = {
  batchSize: 100,
  // A poisoned record is retried a few times, alone after bisection, then sent to the
  // failure queue: the shard moves on instead of blocking for a day (the default).
  retryAttempts: 5,
  maxRecordAge: Duration.hours(1),
} as const;

/**
 * The whole archive in AWS. It reads top to bottom like the architecture:
 * tables → functions → grants → API → stream → alarms.
 *
 * Context: `jwtIssuer` + `jwtAudience` (comma-separated) to trust an existing OIDC issuer for
 * writers; without them the stack creates a Cognito user pool. `alarmEmail` subscribes an
 * address to the alarm topic.
 */
export class LedgerStack extends Stack {
  readonly eventsTable: dynamodb.Table;
  readonly claimsTable: dynamodb.Table;
  readonly viewsTable: dynamodb.Table;
  readonly searchTable: dynamodb.Table;
  readonly api: LedgerFunction;
  readonly projector: LedgerFunction;
  readonly pages: LedgerFunction;
  readonly data: LedgerFunction;
  readonly httpApi: HttpApi;
  readonly failureQueue: sqs.Queue;
  readonly viewRepair: ViewRepair;
  readonly transparencyLog: TransparencyLog;
  readonly exportStreaming: ExportStreaming;
  readonly exportHandOff: ExportHandOff;
  readonly desk: Desk;
  readonly people: PeopleTables;
  readonly evidence: EvidenceBucket;

  constructor(scope: Construct, id: string, props?: StackProps) {
    super(scope, id, props);
    // The one context a deploy may not leave out (infra/transparency-log.ts), checked before any
    // function is bundled.
    logOriginFrom(this);

    // ── Tables ────────────────────────────────────────────────────────────────────────────
    // events: one immutable item per commit. Its stream delivers to the projector; NEW_IMAGE is all
    // it needs (commits never change, so there is no old image worth paying for).
    this.eventsTable = new DurableTable(this, "EventsTable", {
      partitionKey: { name: EVENTS_KEYS.partitionKey, type: dynamodb.AttributeType.STRING },
      sortKey: { name: EVENTS_KEYS.sortKey, type: dynamodb.AttributeType.NUMBER },
      stream: dynamodb.StreamViewType.NEW_IMAGE,
    });
    // The log sequencer's scheduled catch-up reads commits by time (functions/log/incident-lister.ts),
    // from an index sharded over COMMIT_SHARDS partition keys (functions/store/commit-shard.ts).
    this.eventsTable.addGlobalSecondaryIndex({
      indexName: COMMIT_SHARD_INDEX.name,
      partitionKey: { name: COMMIT_SHARD_INDEX.partitionKey, type: dynamodb.AttributeType.STRING },
      sortKey: { name: COMMIT_SHARD_INDEX.sortKey, type: dynamodb.AttributeType.STRING },
      projectionType: dynamodb.ProjectionType.KEYS_ONLY,
    });
    // The unsharded index (one key value takes every append), kept only while a stack that had it
    // upgrades: DynamoDB adds or drops one index per update, and the catch-up reads both meanwhile.
    const legacyCommitIndex = this.node.tryGetContext(LEGACY_COMMIT_INDEX_CONTEXT) === "true";
    if (legacyCommitIndex) {
      this.eventsTable.addGlobalSecondaryIndex({
        indexName: COMMIT_TIME_INDEX.name,
        partitionKey: { name: COMMIT_TIME_INDEX.partitionKey, type: dynamodb.AttributeType.STRING },
        sortKey: { name: COMMIT_TIME_INDEX.sortKey, type: dynamodb.AttributeType.STRING },
        projectionType: dynamodb.ProjectionType.KEYS_ONLY,
      });
    }
    // claims: which commit each client eventId went to. Mutable, hence a table of its own:
    // IAM can then allow UpdateItem here and forbid it on events.
    this.claimsTable = new DurableTable(this, "ClaimsTable", {
      partitionKey: { name: CLAIMS_KEYS.partitionKey, type: dynamodb.AttributeType.STRING },
    });
    // views: one projected summary per incident, rebuildable from events at any time.
    this.viewsTable = new DurableTable(this, "ViewsTable", {
      partitionKey: { name: VIEWS_KEYS.partitionKey, type: dynamodb.AttributeType.STRING },
    });
    this.viewsTable.addGlobalSecondaryIndex({
      indexName: ACTIVITY_INDEX.name,
      partitionKey: { name: ACTIVITY_INDEX.partitionKey, type: dynamodb.AttributeType.STRING },
      sortKey: { name: ACTIVITY_INDEX.sortKey, type: dynamodb.AttributeType.STRING },
      // Only what the listing filters and pages on: a page's summaries come from the views in one
      // BatchGetItem, so a view write does not copy its summary into the index.
      projectionType: dynamodb.ProjectionType.INCLUDE,
      nonKeyAttributes: [...ACTIVITY_INDEX_ATTRIBUTES],
    });

    // search: the finding index (functions/finding/search-index.ts), derived from the views like
    // them: written by the projector after each view, read by the listing's search and the pages.
    this.searchTable = new DurableTable(this, "SearchTable", {
      partitionKey: { name: SEARCH_KEYS.partitionKey, type: dynamodb.AttributeType.STRING },
      sortKey: { name: SEARCH_KEYS.sortKey, type: dynamodb.AttributeType.STRING },
    });

    // ── Functions ─────────────────────────────────────────────────────────────────────────
    const tableEnvironment = {
      EVENTS_TABLE: this.eventsTable.tableName,
      CLAIMS_TABLE: this.claimsTable.tableName,
      VIEWS_TABLE: this.viewsTable.tableName,
      SEARCH_TABLE: this.searchTable.tableName,
    };
    this.api = new LedgerFunction(this, "Api", {
      entry: "functions/lambda/api.ts",
      description: "incident-ledger HTTP API",
      environment: tableEnvironment,
      // Well under API Gateway's 30 s integration limit; a request is a few DynamoDB calls.
      timeout: Duration.seconds(10),
      // Lambda CPU grows with memory; 512 MB keeps the cold start's module loading short.
      memorySize: 512,
    });
    this.projector = new LedgerFunction(this, "Projector", {
      entry: "functions/lambda/projector.ts",
      description: "incident-ledger stream projector (events to views)",
      environment: tableEnvironment,
      timeout: Duration.minutes(1),
      memorySize: 512,
    });

    // The dashboard and /docs: apart, so the API Lambda loads no page code on a cold start.
    this.pages = new LedgerFunction(this, "Pages", {
      entry: "functions/lambda/pages.ts",
      description: "incident-ledger dashboard pages and API docs",
      environment: tableEnvironment,
      timeout: Duration.seconds(10),
      memorySize: 512,
    });

    // The log, feed, exports, releases and /openapi.json: apart, so the API Lambda stays slim.
    this.data = new LedgerFunction(this, "Data", {
      entry: "functions/lambda/data.ts",
      description: "incident-ledger transparency log, feed, exports, releases and OpenAPI document",
      environment: tableEnvironment,
      // A proof asked with wait=true waits up to 8 s (functions/lambda/data.ts), then answers 202.
      timeout: Duration.seconds(10),
      memorySize: 512,
    });

    // ── Grants (least privilege; nobody may delete an item or a table) ────────────────────
    // The API appends commits with a PutItem and reads them back. IAM gives it no UpdateItem or
    // DeleteItem on events; a PutItem could replace an item, and what prevents that is the
    // code's condition on every commit put (attribute_not_exists(version), append-path.ts).
    grantTableActions(this.api.role, this.eventsTable, [
      "dynamodb:Query",
      "dynamodb:GetItem",
      "dynamodb:PutItem",
    ]);
    // Claims: a batch's claims read in one BatchGetItem before any is taken (claim-protocol.ts),
    // then each put, moved or released.
    grantTableActions(this.api.role, this.claimsTable, [
      "dynamodb:GetItem",
      "dynamodb:BatchGetItem",
      "dynamodb:PutItem",
      "dynamodb:UpdateItem",
    ]);
    grantTableActions(
      this.api.role,
      this.viewsTable,
      ["dynamodb:GetItem", "dynamodb:Query"],
      [ACTIVITY_INDEX.name],
    );
    // The sealed pieces of a contested incident's summary lists (ViewStore.getPieces), by key.
    grantTableActions(this.api.role, this.viewsTable, ["dynamodb:BatchGetItem"]);
    grantChainCheckRecords(this.api.role, this.viewsTable);
    // The projector reads events and writes views, nothing else. It reads a claim to find an
    // event by its client id (a retraction's target that the bounded projection no longer holds).
    grantTableActions(this.projector.role, this.eventsTable, ["dynamodb:Query", "dynamodb:GetItem"]);
    grantTableActions(this.projector.role, this.claimsTable, ["dynamodb:GetItem"]);
    grantTableActions(this.projector.role, this.viewsTable, [
      "dynamodb:GetItem",
      "dynamodb:PutItem",
      "dynamodb:BatchGetItem",
    ]);
    // The entries of each link and attribution it folds (functions/editorial).
    grantEditorialIndex(this.projector.role, this.viewsTable);
    // The finding index: the projector brings an incident's entries forward (batch puts and
    // deletes of its own entries, its doc item under a version condition); the API and the pages
    // only query it.
    grantTableActions(this.projector.role, this.searchTable, [
      "dynamodb:GetItem",
      "dynamodb:PutItem",
      "dynamodb:BatchWriteItem",
    ]);
    grantTableActions(this.api.role, this.searchTable, ["dynamodb:Query"]);
    grantTableActions(this.pages.role, this.searchTable, ["dynamodb:Query"]);
    // The pages read summaries and the listing index, events for history and checks, and a claim
    // to find an event by its client id (a past view's read-back). Their one write is the record
    // of a full chain check of a short incident, and only under that key.
    grantTableActions(this.pages.role, this.eventsTable, ["dynamodb:Query", "dynamodb:GetItem"]);
    grantTableActions(this.pages.role, this.claimsTable, ["dynamodb:GetItem"]);
    grantTableActions(
      this.pages.role,
      this.viewsTable,
      ["dynamodb:GetItem", "dynamodb:Query"],
      [ACTIVITY_INDEX.name],
    );
    grantTableActions(this.pages.role, this.viewsTable, ["dynamodb:BatchGetItem"]);
    grantChainCheckRecords(this.pages.role, this.viewsTable);
    // The data routes read events (an event's proof finds it by its client id: a claim), and
    // the feed and the exports read the commits the log's leaves name, many keys at a time.
    grantTableActions(this.data.role, this.eventsTable, [
      "dynamodb:Query",
      "dynamodb:GetItem",
      "dynamodb:BatchGetItem",
    ]);
    grantTableActions(this.data.role, this.claimsTable, ["dynamodb:GetItem"]);
    grantTableActions(this.data.role, this.viewsTable, ["dynamodb:GetItem"]);
    for (const fn of [this.api, this.projector, this.pages, this.data]) {
      Validations.of(fn.role).acknowledge({
        id: "AwsSolutions-IAM5[Resource::*]",
        reason:
          "X-Ray's PutTraceSegments/PutTelemetryRecords and DynamoDB's ListStreams (for the " +
          "projector's event source) have no resource-level permissions; every DynamoDB data " +
          "action is granted on named tables and indexes only.",
      });
    }

    // ── API ───────────────────────────────────────────────────────────────────────────────
    const writers: WriterIdentity =
      writerIdentityFromContext(this) ?? new WriterPool(this, "Writers").identity;
    const writerAuthorizer = new HttpJwtAuthorizer("WriterJwt", writers.issuer, {
      jwtAudience: writers.audience,
    });
    // The people's tables and grants; restricted reads verify the same issuer's tokens in the Lambda.
    this.people = new PeopleTables(this, "People", {
      api: this.api,
      pages: this.pages,
      data: this.data,
      readers: writers,
      // Another issuer's roles claim (CDK context `groupsClaim`); the user pool's groups by default.
      ...(this.node.tryGetContext("groupsClaim")
        ? { groupsClaim: this.node.tryGetContext("groupsClaim") as string }
        : {}),
    });

    this.httpApi = new HttpApi(this, "HttpApi", {
      description: "incident-ledger: an event-sourced archive of reports about conflict incidents",
      // We make the $default stage ourselves, to give it throttling and access logs.
      createDefaultStage: false,
    });
    // Kept after `cdk destroy` (the LogGroup default): it says who called the write route when.
    const accessLogs = new logs.LogGroup(this, "ApiAccessLogs", {
      retention: logs.RetentionDays.THREE_MONTHS,
    });
    const stage = new HttpStage(this, "DefaultStage", {
      httpApi: this.httpApi,
      stageName: "$default",
      autoDeploy: true,
      throttle: API_THROTTLE,
      accessLogSettings: {
        destination: new LogGroupLogDestination(accessLogs),
        // One JSON object per request, with the writer's subject on writes.
        format: apigw.AccessLogFormat.custom(
          JSON.stringify({
            requestId: "$context.requestId",
            ip: "$context.identity.sourceIp",
            requestTime: "$context.requestTime",
            routeKey: "$context.routeKey",
            status: "$context.status",
            responseLength: "$context.responseLength",
            latencyMs: "$context.responseLatency",
            writer: "$context.authorizer.claims.sub",
            authorizerError: "$context.authorizer.error",
            integrationError: "$context.integrationErrorMessage",
          }),
        ),
      },
    });

    // Absolute links (release links, citations) are built on the archive's public origin, never
    // on a request's Host: a custom domain given as context `publicUrl`, else the API's own URL.
    // The functions depend on the API for it; the API does not depend on them (no cycle).
    const publicUrl =
      (this.node.tryGetContext("publicUrl") as string | undefined) ?? this.httpApi.apiEndpoint;
    for (const fn of [this.data, this.pages]) fn.function.addEnvironment("LEDGER_PUBLIC_URL", publicUrl);

    const integration = new HttpLambdaIntegration("ApiIntegration", this.api.function);
    const dataIntegration = new HttpLambdaIntegration("DataIntegration", this.data.function);
    for (const [path, target] of [
      [WRITE_PATH, integration],
      [RELEASE_PATH, dataIntegration],
    ] as const)
      this.httpApi.addRoutes({
        path,
        methods: [HttpMethod.POST],
        integration: target,
        authorizer: writerAuthorizer,
      });
    const pagesIntegration = new HttpLambdaIntegration("PagesIntegration", this.pages.function);
    // The desk: sign-in, sessions and forms on the pages Lambda (infra/desk.ts).
    this.desk = new Desk(this, "Desk", {
      writers,
      pages: this.pages,
      httpApi: this.httpApi,
      pagesIntegration,
      eventsTable: this.eventsTable,
      claimsTable: this.claimsTable,
      disclosuresTable: this.people.disclosures,
    });
    const publicRoutes = [
      ...PUBLIC_GET_PATHS.map((path) => [path, integration] as const),
      ...PAGE_PATHS.map((path) => [path, pagesIntegration] as const),
      ...DATA_GET_PATHS.map((path) => [path, dataIntegration] as const),
    ].flatMap(([path, target]) =>
      this.httpApi.addRoutes({
        path,
        methods: [HttpMethod.GET],
        integration: target,
        authorizer: new HttpNoneAuthorizer(),
      }),
    );
    for (const route of publicRoutes) {
      Validations.of(route).acknowledge({
        id: "AwsSolutions-APIG4",
        reason:
          "Reads are public by design: the archive publishes evidence for anyone to check. " +
          "The only write route requires a writer's JWT.",
      });
    }

    // ── Stream: events → projector → views ────────────────────────────────────────────────
    // Where a record goes after its retries, the projector's and the log sequencer's alike: the
    // shard and sequence numbers land here (not the record itself); the events table still holds
    // the commit, the view repair re-projects it and the sequencer's catch-up sequences it.
    this.failureQueue = new sqs.Queue(this, "ProjectorFailures", {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    Validations.of(this.failureQueue).acknowledge({
      id: "AwsSolutions-SQS3",
      reason:
        "This queue is itself the projector's on-failure destination (a dead-letter queue for " +
        "the stream); a queue behind it would only move the same metadata again. It is alarmed.",
    });
    this.projector.function.addEventSource(
      new DynamoEventSource(this.eventsTable, {
        // Oldest first: after a deploy or an outage the projector catches up on everything.
        startingPosition: lambda.StartingPosition.TRIM_HORIZON,
        batchSize: PROJECTOR_STREAM.batchSize,
        bisectBatchOnError: true,
        reportBatchItemFailures: true,
        retryAttempts: PROJECTOR_STREAM.retryAttempts,
        maxRecordAge: PROJECTOR_STREAM.maxRecordAge,
        onFailure: new SqsDlq(this.failureQueue),
        // Only new commits: no invocation (and no cost) for anything else the table might hold.
        filters: [
          lambda.FilterCriteria.filter({
            eventName: lambda.FilterRule.isEqual("INSERT"),
            dynamodb: { NewImage: { itemType: { S: lambda.FilterRule.isEqual(COMMIT_ITEM_TYPE) } } },
          }),
        ],
      }),
    );

    // Records given up on name no incident: a scheduled sweep re-projects whatever lags.
    this.viewRepair = new ViewRepair(this, "ViewRepair", {
      eventsTable: this.eventsTable,
      viewsTable: this.viewsTable,
      searchTable: this.searchTable,
      people: { disclosuresTable: this.people.disclosures, claimsTable: this.claimsTable },
      environment: tableEnvironment,
    });

    // ── Transparency log: its table, KMS key and sequencer (a second consumer of the stream) ──
    this.transparencyLog = new TransparencyLog(this, "TransparencyLog", {
      eventsTable: this.eventsTable,
      claimsTable: this.claimsTable,
      viewsTable: this.viewsTable,
      reader: this.data,
      failureQueue: this.failureQueue,
      legacyCommitIndex,
    });
    // The pages show each event's leaf and the latest checkpoint, cite releases, and build the
    // desk's proof bundles (the log's public key in them): log reads only.
    this.transparencyLog.grantRead(this.pages);

    // ── Exports: streamed by a function URL, past API Gateway's 6 MB / 30 s; the API redirects ──
    this.exportStreaming = new ExportStreaming(this, "ExportStreaming", {
      eventsTable: this.eventsTable,
      viewsTable: this.viewsTable,
      logTable: this.transparencyLog.table,
      claimsTable: this.claimsTable,
      environment: tableEnvironment,
    });
    this.data.function.addEnvironment("EXPORTS_URL", this.exportStreaming.url.url);
    this.people.grantExport(this.exportStreaming.fn);
    Validations.of(this.exportStreaming.fn.role).acknowledge({
      id: "AwsSolutions-IAM5[Resource::*]",
      reason:
        "X-Ray's PutTraceSegments/PutTelemetryRecords have no resource-level permissions; every " +
        "DynamoDB action is granted on named tables only.",
    });

    // ── Exports of any size: built once into a bucket, served by presigned GETs (Range, any size) ──
    this.exportHandOff = new ExportHandOff(this, "ExportHandOff", {
      eventsTable: this.eventsTable,
      viewsTable: this.viewsTable,
      logTable: this.transparencyLog.table,
      claimsTable: this.claimsTable,
      environment: tableEnvironment,
    });
    this.exportHandOff.grantServe(this.data);
    // The desk's release form (an editor's) writes releases as POST /releases does (infra/desk.ts).
    this.desk.grantReleases(this.transparencyLog.table, this.exportHandOff.builder);

    // ── Evidence: the bytes reports rest on (functions/evidence), in a bucket of their own ──
    this.evidence = new EvidenceBucket(this, "Evidence");
    this.evidence.grantWrite(this.api);
    this.evidence.grantRead(this.data);
    // The desk's evidence form puts bytes as the API does (infra/desk.ts).
    this.desk.grantUploads(this.evidence);
    this.evidence.addRoutes({
      httpApi: this.httpApi,
      api: integration,
      data: dataIntegration,
      writerAuthorizer,
      writers,
      readers: [this.api, this.data],
    });

    // ── Alarms ────────────────────────────────────────────────────────────────────────────
    const alarmTopic = new sns.Topic(this, "AlarmTopic", {
      displayName: "incident-ledger alarms",
      enforceSSL: true,
    });
    const alarmEmail = this.node.tryGetContext("alarmEmail") as string | undefined;
    if (alarmEmail) alarmTopic.addSubscription(new subscriptions.EmailSubscription(alarmEmail));
    const notify = new cwActions.SnsAction(alarmTopic);
    // Every alarm here fires on the first five-minute period above its threshold: each one
    // means evidence is not being served as stored, which nobody should wait to hear about.
    const alarmAbove = (id: string, description: string, metric: cloudwatch.IMetric, threshold: number) =>
      new cloudwatch.Alarm(this, id, {
        alarmDescription: description,
        metric,
        threshold,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      }).addAlarmAction(notify);
    const fiveMinutes = Duration.minutes(5);

    // Both stream consumers park what they give up on in the one failure queue, and nothing
    // consumes it: the alarm counts arrivals, so it fires for each new failure and clears after,
    // instead of staying raised while the messages wait out their 14 days.
    alarmAbove(
      "StreamFailuresAlarm",
      "The projector or the log sequencer gave up on stream records and sent their positions to the failure queue: a view may lag its events until the view repair runs, the log until its catch-up.",
      this.failureQueue.metricNumberOfMessagesSent({
        period: fiveMinutes,
        statistic: cloudwatch.Stats.SUM,
      }),
      0,
    );
    alarmAbove(
      "ProjectorErrorsAlarm",
      "The projector threw instead of reporting item failures: a whole batch failed.",
      this.projector.function.metricErrors({ period: fiveMinutes, statistic: cloudwatch.Stats.SUM }),
      0,
    );
    alarmAbove(
      "ProjectorIteratorAgeAlarm",
      "Views lag new events by more than 5 minutes.",
      this.projector.function.metric("IteratorAge", {
        period: fiveMinutes,
        statistic: cloudwatch.Stats.MAXIMUM,
      }),
      fiveMinutes.toMilliseconds(),
    );
    // The sweep is what repairs views whose stream records were given up on: a failed run, or
    // none, leaves them lagging; a run near its timeout warns before the table outgrows it.
    alarmAbove(
      "ViewRepairErrorsAlarm",
      "A view-repair run failed (a view it could not repair, an exception, or its timeout): views may lag their events.",
      this.viewRepair.fn.function.metricErrors({ period: fiveMinutes, statistic: cloudwatch.Stats.SUM }),
      0,
    );
    alarmAbove(
      "ViewRepairDurationAlarm",
      "A view-repair run took over 80 % of its timeout: as the tables grow it will soon fail to finish.",
      this.viewRepair.fn.function.metricDuration({
        period: fiveMinutes,
        statistic: cloudwatch.Stats.MAXIMUM,
      }),
      VIEW_REPAIR_TIMEOUT.toMilliseconds() * 0.8,
    );
    new cloudwatch.Alarm(this, "ViewRepairNotFinishingAlarm", {
      alarmDescription:
        "No view-repair run finished in two schedule periods: it failed, timed out, was throttled or never started.",
      metric: this.viewRepair.metricFinishedRuns(),
      threshold: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.LESS_THAN_THRESHOLD,
      evaluationPeriods: 2,
      datapointsToAlarm: 2,
      treatMissingData: cloudwatch.TreatMissingData.BREACHING,
    }).addAlarmAction(notify);
    alarmAbove(
      "ApiServerErrorsAlarm",
      "The API answered 5xx.",
      this.httpApi.metricServerError({ period: fiveMinutes, statistic: cloudwatch.Stats.SUM }),
      0,
    );
    // A release's export that failed to build (each failed attempt counts) keeps streaming from
    // the function URL, within its 200 MB: someone should rebuild it (docs/reference/aws-stack.md).
    alarmAbove(
      "ExportBuilderErrorsAlarm",
      "An export build failed: a release's export is served by streaming (at most 200 MB) until rebuilt.",
      this.exportHandOff.builder.function.metricErrors({
        period: fiveMinutes,
        statistic: cloudwatch.Stats.SUM,
      }),
      0,
    );
    // The log sequencer: errors, stream iterator age, events left unsigned (its EMF metrics).
    this.transparencyLog.addAlarms(notify);
    // Changes to its signing key's policy or grants: told at once, not as a metric.
    this.transparencyLog.watchSigningKey(alarmTopic);
    // Restricted bytes are read through the API, the bundles (data) and the desk (pages).
    this.evidence.addAlarms(notify, [this.api, this.data, this.pages]);

    // ── Outputs ───────────────────────────────────────────────────────────────────────────
    new CfnOutput(this, "ApiUrl", { value: stage.url, description: "Base URL of the archive's HTTP API" });
    new CfnOutput(this, "EventsTableName", { value: this.eventsTable.tableName });
    new CfnOutput(this, "ClaimsTableName", { value: this.claimsTable.tableName });
    new CfnOutput(this, "ViewsTableName", { value: this.viewsTable.tableName });
    new CfnOutput(this, "SearchTableName", { value: this.searchTable.tableName });
    new CfnOutput(this, "LogTableName", { value: this.transparencyLog.table.tableName });
    new CfnOutput(this, "LogSigningKeyArn", { value: this.transparencyLog.signingKey.keyArn });
    new CfnOutput(this, "ProjectorFailureQueueUrl", { value: this.failureQueue.queueUrl });
    new CfnOutput(this, "AlarmTopicArn", { value: alarmTopic.topicArn });
    new CfnOutput(this, "EvidenceBucketName", { value: this.evidence.bucket.bucketName });
    if (writers.created) {
      new CfnOutput(this, "UserPoolId", { value: writers.created.userPool.userPoolId });
      new CfnOutput(this, "UserPoolClientId", { value: writers.created.client.userPoolClientId });
    }
  }
}
