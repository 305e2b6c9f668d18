import type { CfnElement } from "aws-cdk-lib";
import { Match, type Template } from "aws-cdk-lib/assertions";
import type { IConstruct } from "constructs";
import { beforeAll, describe, expect, it } from "vitest";
import {
  ACTIVITY_INDEX,
  ACTIVITY_INDEX_ATTRIBUTES,
  CLAIMS_KEYS,
  EVENTS_KEYS,
  VIEWS_KEYS,
} from "../../functions/store/table-design.js";
import { DESK_GET_PATHS, DESK_POST_PATHS } from "../../infra/desk.js";
import { createLedgerApp } from "../../infra/ledger-app.js";
import type { LedgerStack } from "../../infra/ledger-stack.js";
import { actionsByResource, allAllowedActions, type Json, synthLedger } from "./synth.js";

const DESK_ROUTES = [...DESK_GET_PATHS.map((p) => `GET ${p}`), ...DESK_POST_PATHS.map((p) => `POST ${p}`)];
let stack: LedgerStack;
let template: Template;
const id = (construct: IConstruct) => stack.getLogicalId(construct.node.defaultChild as CfnElement);
const actionsOf = (role: IConstruct) =>
  [...actionsByResource(template, id(role)).values()].flatMap((actions) => [...actions]);

beforeAll(() => {
  ({ stack, template } = synthLedger());
});

describe("IAM: least privilege per role", () => {
  it("lets the API append and read events, but never update or delete one", () => {
    const api = actionsByResource(template, id(stack.api.role));
    const onEvents = [...(api.get(id(stack.eventsTable)) ?? [])].sort();
    expect(onEvents).toEqual(["dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:Query"]);
    for (const forbidden of ["dynamodb:UpdateItem", "dynamodb:DeleteItem", "dynamodb:BatchWriteItem"]) {
      expect(onEvents).not.toContain(forbidden);
    }
    expect([...(api.get(id(stack.claimsTable)) ?? [])].sort()).toEqual([
      "dynamodb:BatchGetItem",
      "dynamodb:GetItem",
      "dynamodb:PutItem",
      "dynamodb:UpdateItem",
    ]);
    const views = id(stack.viewsTable);
    expect([...(api.get(views) ?? [])].sort()).toEqual([
      "dynamodb:BatchGetItem",
      "dynamodb:GetItem",
      "dynamodb:PutItem",
      "dynamodb:Query",
    ]);
    // Its only write there: the record of a passed /verify, by key.
    template.hasResourceProperties("AWS::IAM::Policy", {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Action: "dynamodb:PutItem",
            Condition: { "ForAllValues:StringLike": { "dynamodb:LeadingKeys": ["*#chain-check"] } },
          }),
        ]),
      },
    });
    expect([...(api.get(`${views}/index/${ACTIVITY_INDEX.name}`) ?? [])].sort()).toEqual([
      "dynamodb:GetItem",
      "dynamodb:Query",
    ]);
    // Nothing of the log: its table, its key and the exports are the data Lambda's.
    expect(api.get(id(stack.transparencyLog.table))).toBeUndefined();
    expect(actionsOf(stack.api.role).filter((a) => a.startsWith("kms:"))).toEqual([]);
  });

  it("lets the data Lambda read events, claims and views, and nothing else of them", () => {
    const data = actionsByResource(template, id(stack.data.role));
    expect([...(data.get(id(stack.eventsTable)) ?? [])].sort()).toEqual([
      "dynamodb:BatchGetItem",
      "dynamodb:GetItem",
      "dynamodb:Query",
    ]);
    expect([...(data.get(id(stack.claimsTable)) ?? [])]).toEqual(["dynamodb:GetItem"]);
    expect([...(data.get(id(stack.viewsTable)) ?? [])]).toEqual(["dynamodb:GetItem"]);
    expect(actionsOf(stack.data.role).filter((a) => a.startsWith("kms:"))).toEqual(["kms:GetPublicKey"]);
  });

  it("lets the projector read events, claims and the stream and write views, nothing else", () => {
    const projector = actionsByResource(template, id(stack.projector.role));
    expect([...(projector.get(id(stack.eventsTable)) ?? [])].sort()).toEqual([
      "dynamodb:GetItem",
      "dynamodb:Query",
    ]);
    expect([...(projector.get(id(stack.viewsTable)) ?? [])].sort()).toEqual([
      "dynamodb:BatchGetItem",
      "dynamodb:GetItem",
      "dynamodb:PutItem",
      "dynamodb:UpdateItem",
    ]);
    // Its one update: an entry of the editorial index (its own links and attributions, another
    // incident's incoming links), by key, never a view.
    template.hasResourceProperties("AWS::IAM::Policy", {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Action: "dynamodb:UpdateItem",
            Condition: {
              "ForAllValues:StringLike": {
                "dynamodb:LeadingKeys": ["*#links-in", "*#links-out", "*#attributions"],
              },
            },
          }),
        ]),
      },
    });
    // Read-only: a claim names where a client id's event is (findEvent), never written here.
    expect([...(projector.get(id(stack.claimsTable)) ?? [])]).toEqual(["dynamodb:GetItem"]);
    expect([...(projector.get(`${id(stack.eventsTable)}.StreamArn`) ?? [])].sort()).toEqual([
      "dynamodb:DescribeStream",
      "dynamodb:GetRecords",
      "dynamodb:GetShardIterator",
    ]);
    const indexes = [...projector.keys()].filter((key) => key.includes("/index/"));
    expect(indexes).toEqual([]);
  });

  it("lets the pages read events, views, claims and the log, append as the API does (the desk), and write only chain-check views", () => {
    const pages = actionsByResource(template, id(stack.pages.role));
    // The desk's posts run the API's append (test/infra/desk.test.ts): PutItem, never an update.
    expect([...(pages.get(id(stack.eventsTable)) ?? [])].sort()).toEqual([
      "dynamodb:GetItem",
      "dynamodb:PutItem",
      "dynamodb:Query",
    ]);
    expect([...(pages.get(id(stack.claimsTable)) ?? [])].sort()).toEqual([
      "dynamodb:BatchGetItem",
      "dynamodb:GetItem",
      "dynamodb:PutItem",
      "dynamodb:UpdateItem",
    ]);
    // PutItem on the log: the desk's releases, under the release keys only (test/infra/desk.test.ts).
    expect([...(pages.get(id(stack.transparencyLog.table)) ?? [])].sort()).toEqual([
      "dynamodb:GetItem",
      "dynamodb:PutItem",
      "dynamodb:Query",
    ]);
    const views = id(stack.viewsTable);
    // PutItem on views comes with a LeadingKeys condition (`*#chain-check`), checked with the API's.
    expect([...(pages.get(views) ?? [])].sort()).toEqual([
      "dynamodb:BatchGetItem",
      "dynamodb:GetItem",
      "dynamodb:PutItem",
      "dynamodb:Query",
    ]);
    // …and every PutItem on views the pages' role is given carries the condition: chain-check records only.
    const pagePolicies = Object.values(template.findResources("AWS::IAM::Policy")).filter((p) =>
      JSON.stringify(p.Properties.Roles).includes(id(stack.pages.role)),
    );
    const puts = pagePolicies.flatMap((p) =>
      (
        p.Properties.PolicyDocument.Statement as { Action: unknown; Condition?: unknown; Resource: unknown }[]
      ).filter(
        (st) =>
          [st.Action].flat().includes("dynamodb:PutItem") && JSON.stringify(st.Resource).includes(views),
      ),
    );
    expect(puts.length).toBeGreaterThan(0);
    for (const put of puts)
      expect(put.Condition).toEqual({
        "ForAllValues:StringLike": { "dynamodb:LeadingKeys": ["*#chain-check"] },
      });
    expect([...(pages.get(`${views}/index/${ACTIVITY_INDEX.name}`) ?? [])].sort()).toEqual([
      "dynamodb:GetItem",
      "dynamodb:Query",
    ]);
    expect(pages.get(`${id(stack.eventsTable)}.StreamArn`)).toBeUndefined();
    // The desk's proof bundles carry the log's public key: it may read it, never sign.
    expect(actionsOf(stack.pages.role).filter((a) => a.startsWith("kms:"))).toEqual(["kms:GetPublicKey"]);
    const env =
      template.findResources("AWS::Lambda::Function")[id(stack.pages.function)]?.Properties.Environment
        .Variables;
    expect(env.LOG_KEY_ID).toEqual({ "Fn::GetAtt": [id(stack.transparencyLog.signingKey), "Arn"] });
  });

  it("allows no deletes, batch writes or wildcard actions to anyone (scans and batch writes: the view repair only)", () => {
    const actions = allAllowedActions(template);
    expect(actions.length).toBeGreaterThan(0);
    for (const action of actions) expect(action).not.toMatch(/\*/);
    // The one delete: the view repair's of orphan disclosures (test/infra/view-repair.test.ts).
    for (const action of allAllowedActions(template, [id(stack.viewRepair.fn.role)])) {
      expect(action).not.toMatch(/^dynamodb:(Delete|UpdateTable|PartiQL)/);
    }
    const repair = actionsByResource(template, id(stack.viewRepair.fn.role));
    for (const [resource, granted] of repair) {
      if (resource !== id(stack.people.disclosures))
        expect([...granted].join()).not.toMatch(/dynamodb:(Delete|UpdateTable|PartiQL)/);
    }
    // The exports function's scan is of the disclosures table alone (test/infra/people-stack.test.ts
    // holds it to it); the projector's batch writes of the finding index alone (below).
    for (const action of allAllowedActions(template, [
      id(stack.viewRepair.fn.role),
      id(stack.exportStreaming.fn.role),
      id(stack.projector.role),
    ])) {
      expect(action).not.toMatch(/^dynamodb:(BatchWrite|Scan)/);
    }
    // The projector's one batch write: the finding index, derived and rebuilt from the views.
    const projector = actionsByResource(template, id(stack.projector.role));
    for (const [resource, actions] of projector) {
      if (resource !== id(stack.searchTable)) expect([...actions].join()).not.toMatch(/BatchWrite|Scan/);
    }
    expect([...(projector.get(id(stack.searchTable)) ?? [])].sort()).toEqual([
      "dynamodb:BatchWriteItem",
      "dynamodb:GetItem",
      "dynamodb:PutItem",
    ]);
    for (const role of [stack.api.role, stack.pages.role]) {
      expect([...(actionsByResource(template, id(role)).get(id(stack.searchTable)) ?? [])]).toEqual([
        "dynamodb:Query",
      ]);
    }
    // The sweep re-projects, so it brings entries forward as the projector does.
    const sweep = actionsByResource(template, id(stack.viewRepair.fn.role));
    expect([...(sweep.get(id(stack.searchTable)) ?? [])].sort()).toEqual([
      "dynamodb:BatchWriteItem",
      "dynamodb:GetItem",
      "dynamodb:PutItem",
    ]);
  });

  it("puts only actions without resource-level permissions on the `*` resource", () => {
    for (const role of [stack.api.role, stack.projector.role, stack.pages.role, stack.data.role]) {
      const onAnything = [...(actionsByResource(template, id(role)).get("*") ?? [])];
      for (const action of onAnything) {
        expect(["xray:PutTraceSegments", "xray:PutTelemetryRecords", "dynamodb:ListStreams"]).toContain(
          action,
        );
      }
    }
  });

  it("attaches no managed policies to the functions' roles", () => {
    for (const role of [stack.api.role, stack.projector.role, stack.pages.role, stack.data.role]) {
      const resource: Json = template.toJSON().Resources[id(role)];
      expect(resource.Properties.ManagedPolicyArns).toBeUndefined();
    }
  });
});

describe("tables: nothing is lost", () => {
  it.each([
    ["events", () => stack.eventsTable],
    ["claims", () => stack.claimsTable],
    ["views", () => stack.viewsTable],
  ])("keeps the %s table: retained, deletion-protected, PITR, on-demand, KMS-encrypted", (_, table) => {
    const resource: Json = template.toJSON().Resources[id(table())];
    expect(resource.DeletionPolicy).toBe("Retain");
    expect(resource.UpdateReplacePolicy).toBe("Retain");
    expect(resource.Properties).toMatchObject({
      BillingMode: "PAY_PER_REQUEST",
      DeletionProtectionEnabled: true,
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      // SSEEnabled without a key id: KMS with the AWS-managed key aws/dynamodb.
      SSESpecification: { SSEEnabled: true },
    });
  });

  it("gives the tables the keys the store code uses", () => {
    const resources: Json = template.toJSON().Resources;
    expect(resources[id(stack.eventsTable)].Properties.KeySchema).toEqual([
      { AttributeName: EVENTS_KEYS.partitionKey, KeyType: "HASH" },
      { AttributeName: EVENTS_KEYS.sortKey, KeyType: "RANGE" },
    ]);
    expect(resources[id(stack.eventsTable)].Properties.AttributeDefinitions).toContainEqual({
      AttributeName: EVENTS_KEYS.sortKey,
      AttributeType: "N",
    });
    expect(resources[id(stack.claimsTable)].Properties.KeySchema).toEqual([
      { AttributeName: CLAIMS_KEYS.partitionKey, KeyType: "HASH" },
    ]);
    expect(resources[id(stack.viewsTable)].Properties.KeySchema).toEqual([
      { AttributeName: VIEWS_KEYS.partitionKey, KeyType: "HASH" },
    ]);
    expect(resources[id(stack.viewsTable)].Properties.GlobalSecondaryIndexes).toEqual([
      {
        IndexName: ACTIVITY_INDEX.name,
        KeySchema: [
          { AttributeName: ACTIVITY_INDEX.partitionKey, KeyType: "HASH" },
          { AttributeName: ACTIVITY_INDEX.sortKey, KeyType: "RANGE" },
        ],
        Projection: { ProjectionType: "INCLUDE", NonKeyAttributes: [...ACTIVITY_INDEX_ATTRIBUTES] },
      },
    ]);
  });

  it("streams new images of the events table only", () => {
    const resources: Json = template.toJSON().Resources;
    expect(resources[id(stack.eventsTable)].Properties.StreamSpecification).toEqual({
      StreamViewType: "NEW_IMAGE",
    });
    expect(resources[id(stack.claimsTable)].Properties.StreamSpecification).toBeUndefined();
    expect(resources[id(stack.viewsTable)].Properties.StreamSpecification).toBeUndefined();
  });
});

describe("functions", () => {
  it.each([
    ["api", () => stack.api],
    ["projector", () => stack.projector],
    ["pages", () => stack.pages],
    ["data", () => stack.data],
  ])("runs the %s on arm64 Node.js 24 with bounded resources, JSON logs, retention and tracing", (_, fn) => {
    const resources: Json = template.toJSON().Resources;
    const props = resources[id(fn().function)].Properties;
    expect(props).toMatchObject({
      Runtime: "nodejs24.x",
      Architectures: ["arm64"],
      Handler: "index.handler",
      TracingConfig: { Mode: "Active" },
      LoggingConfig: { LogFormat: "JSON", LogGroup: { Ref: id(fn().logGroup) } },
      Environment: {
        Variables: {
          EVENTS_TABLE: { Ref: id(stack.eventsTable) },
          CLAIMS_TABLE: { Ref: id(stack.claimsTable) },
          VIEWS_TABLE: { Ref: id(stack.viewsTable) },
          NODE_OPTIONS: "--enable-source-maps",
        },
      },
    });
    expect(props.Timeout).toBeLessThanOrEqual(60);
    expect(props.MemorySize).toBeLessThanOrEqual(1024);
    expect(resources[id(fn().logGroup)].Properties.RetentionInDays).toBe(30);
  });
});

describe("public origin", () => {
  it("gives the data and pages functions the API's own URL (no Host header decides a link), and no other", () => {
    const resources: Json = template.toJSON().Resources;
    const envOf = (fn: () => { function: IConstruct }) =>
      resources[id(fn().function)].Properties.Environment.Variables as Json;
    const apiId = id(stack.httpApi);
    for (const fn of [() => stack.data, () => stack.pages])
      expect(envOf(fn).LEDGER_PUBLIC_URL).toEqual({ "Fn::GetAtt": [apiId, "ApiEndpoint"] });
    expect(envOf(() => stack.api).LEDGER_PUBLIC_URL).toBeUndefined();
  });
});

describe("stream: events → projector", () => {
  it("bisects, reports item failures, bounds retries and age, and parks failures in SQS", () => {
    // Two consumers read the stream: the projector, and the log's sequencer (test/log/infra).
    const mappings = Object.values(template.findResources("AWS::Lambda::EventSourceMapping")) as Json[];
    expect(
      mappings.filter((m) => m.Properties.FunctionName.Ref === id(stack.projector.function)),
    ).toHaveLength(1);
    expect(mappings).toHaveLength(2);
    template.hasResourceProperties("AWS::Lambda::EventSourceMapping", {
      EventSourceArn: { "Fn::GetAtt": [id(stack.eventsTable), "StreamArn"] },
      FunctionName: { Ref: id(stack.projector.function) },
      StartingPosition: "TRIM_HORIZON",
      BisectBatchOnFunctionError: true,
      FunctionResponseTypes: ["ReportBatchItemFailures"],
      MaximumRetryAttempts: 5,
      MaximumRecordAgeInSeconds: 3600,
      DestinationConfig: { OnFailure: { Destination: { "Fn::GetAtt": [id(stack.failureQueue), "Arn"] } } },
    });
  });

  it("is invoked only for inserted commits", () => {
    const mapping: Json = Object.values(template.findResources("AWS::Lambda::EventSourceMapping"))[0];
    const filters: Json[] = mapping.Properties.FilterCriteria.Filters;
    expect(filters.map((f) => JSON.parse(f.Pattern))).toEqual([
      { eventName: ["INSERT"], dynamodb: { NewImage: { itemType: { S: ["commit"] } } } },
    ]);
  });

  it("keeps the failure queue encrypted, TLS-only and for 14 days", () => {
    template.hasResourceProperties("AWS::SQS::Queue", {
      SqsManagedSseEnabled: true,
      MessageRetentionPeriod: 14 * 24 * 3600,
    });
    template.hasResourceProperties("AWS::SQS::QueuePolicy", {
      Queues: [{ Ref: id(stack.failureQueue) }],
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: "Deny", Condition: { Bool: { "aws:SecureTransport": "false" } } }),
        ]),
      },
    });
  });
});

describe("HTTP API", () => {
  const routes = () =>
    Object.values(template.findResources("AWS::ApiGatewayV2::Route") as Record<string, Json>).map(
      (r) => r.Properties,
    );

  it("serves every route of the contract", () => {
    expect(
      routes()
        .map((r) => r.RouteKey)
        .sort(),
    ).toEqual(
      [
        "POST /incidents/{incidentId}/events",
        "POST /releases",
        "GET /",
        "GET /codebook",
        "GET /docs",
        "GET /openapi.json",
        "GET /health",
        "GET /incidents",
        "GET /incidents/{incidentId}",
        "GET /incidents/{incidentId}/events",
        "GET /incidents/{incidentId}/verify",
        "GET /incidents/{incidentId}/events/{eventId}/proof",
        "GET /log/{proxy+}",
        "GET /feed",
        "GET /export/{name}",
        "GET /releases",
        "GET /releases/{name}",
        "GET /view/{incidentId}",
        "GET /map",
        "GET /source/{name}",
        "GET /sources/{name}",
        "GET /{proxy+}",
        "POST /evidence",
        "POST /evidence/uploads",
        "GET /evidence/{sha256}",
        "GET /incidents/{incidentId}/events/{eventId}/bundle",
        ...DESK_ROUTES,
      ].sort(),
    );
  });

  it("sends the pages to the pages Lambda, the log, feed, exports, releases and document to the data Lambda, the rest to the API Lambda", () => {
    const resources: Json = template.toJSON().Resources;
    const functionOf = (route: Json): string => {
      const integration = route.Target["Fn::Join"][1][1].Ref as string;
      return resources[integration].Properties.IntegrationUri["Fn::GetAtt"][0];
    };
    const byFunction = new Map<string, string[]>();
    for (const route of routes()) {
      const fn = functionOf(route);
      byFunction.set(fn, [...(byFunction.get(fn) ?? []), route.RouteKey].sort());
    }
    expect(byFunction.get(id(stack.pages.function))).toEqual(
      [
        "GET /",
        "GET /codebook",
        "GET /docs",
        "GET /map",
        "GET /source/{name}",
        "GET /view/{incidentId}",
        ...DESK_ROUTES,
      ].sort(),
    );
    expect(byFunction.get(id(stack.data.function))).toEqual(
      [
        "GET /export/{name}",
        "GET /feed",
        "GET /incidents/{incidentId}/events/{eventId}/bundle",
        "GET /incidents/{incidentId}/events/{eventId}/proof",
        "GET /log/{proxy+}",
        "GET /openapi.json",
        "GET /releases",
        "GET /releases/{name}",
        "POST /releases",
      ].sort(),
    );
    expect(byFunction.get(id(stack.api.function))).toEqual(
      [
        "GET /health",
        "GET /incidents",
        "GET /incidents/{incidentId}",
        "GET /incidents/{incidentId}/events",
        "GET /incidents/{incidentId}/verify",
        "GET /sources/{name}",
        "GET /{proxy+}",
        "POST /incidents/{incidentId}/events",
        "GET /evidence/{sha256}",
        "POST /evidence",
        "POST /evidence/uploads",
      ].sort(),
    );
    expect(byFunction.size).toBe(3);
  });

  it("puts the JWT authorizer on the write routes (appends, releases) and none on the reads", () => {
    const authorizerId = Object.keys(template.findResources("AWS::ApiGatewayV2::Authorizer"));
    expect(authorizerId).toHaveLength(1);
    for (const route of routes()) {
      // The desk's posts are checked by the pages Lambda: its session, form token and origin.
      if (route.RouteKey.startsWith("POST ") && !DESK_ROUTES.includes(route.RouteKey)) {
        expect(route.AuthorizationType).toBe("JWT");
        expect(route.AuthorizerId).toEqual({ Ref: authorizerId[0] });
      } else {
        expect(route.AuthorizationType).toBe("NONE");
        expect(route.AuthorizerId).toBeUndefined();
      }
    }
  });

  it("trusts the created Cognito pool's ID tokens when no issuer is given", () => {
    const pools = Object.keys(template.findResources("AWS::Cognito::UserPool"));
    // The writers' client (no OAuth: tokens from InitiateAuth); the desk's is test/infra/desk.test.ts's.
    const clients = Object.entries(template.findResources("AWS::Cognito::UserPoolClient"))
      .filter(([, c]) => !(c as Json).Properties.AllowedOAuthFlows)
      .map(([key]) => key);
    expect(pools).toHaveLength(1);
    expect(clients).toHaveLength(1);
    const authorizer: Json = Object.values(template.findResources("AWS::ApiGatewayV2::Authorizer"))[0];
    expect(authorizer.Properties.AuthorizerType).toBe("JWT");
    expect(authorizer.Properties.IdentitySource).toEqual(["$request.header.Authorization"]);
    expect(authorizer.Properties.JwtConfiguration.Audience).toEqual([{ Ref: clients[0] }]);
    expect(JSON.stringify(authorizer.Properties.JwtConfiguration.Issuer)).toContain(pools[0]);
    template.hasResourceProperties("AWS::Cognito::UserPoolClient", {
      GenerateSecret: false,
      ExplicitAuthFlows: Match.arrayWith(["ALLOW_USER_PASSWORD_AUTH", "ALLOW_USER_SRP_AUTH"]),
    });
    template.hasResourceProperties("AWS::Cognito::UserPool", {
      AdminCreateUserConfig: { AllowAdminCreateUserOnly: true },
    });
  });

  it("throttles the default stage and logs every request", () => {
    const logGroups = template.findResources("AWS::Logs::LogGroup");
    const stage: Json = Object.values(template.findResources("AWS::ApiGatewayV2::Stage"))[0];
    expect(stage.Properties).toMatchObject({
      StageName: "$default",
      AutoDeploy: true,
      DefaultRouteSettings: { ThrottlingRateLimit: 100, ThrottlingBurstLimit: 200 },
    });
    const destination = stage.Properties.AccessLogSettings.DestinationArn["Fn::GetAtt"][0];
    expect(Object.keys(logGroups)).toContain(destination);
    expect(logGroups[destination]?.Properties.RetentionInDays).toBe(90);
    expect(JSON.parse(stage.Properties.AccessLogSettings.Format)).toMatchObject({
      requestId: "$context.requestId",
      status: "$context.status",
    });
  });
});

describe("alarms", () => {
  const alarms = () =>
    Object.values(template.findResources("AWS::CloudWatch::Alarm") as Record<string, Json>);
  const topic = () => Object.keys(template.findResources("AWS::SNS::Topic"))[0];
  // `of`: a dimension value the alarm must name (several functions have Errors alarms).
  const alarmOn = (metricName: string, of?: Json) => {
    const found = alarms().filter(
      (a) =>
        a.Properties.MetricName === metricName &&
        (of === undefined || JSON.stringify(a.Properties.Dimensions).includes(JSON.stringify(of))),
    );
    expect(found).toHaveLength(1);
    return found[0].Properties;
  };

  it("raises an alarm each time a stream consumer (projector or sequencer) sends a record to the failure queue", () => {
    // On arrivals, not on what waits: nothing drains the queue, so an alarm on the messages
    // visible would stay raised for their 14 days and hide every later failure.
    expect(alarms().filter((a) => a.Properties.MetricName === "ApproximateNumberOfMessagesVisible")).toEqual(
      [],
    );
    expect(alarmOn("NumberOfMessagesSent")).toMatchObject({
      Namespace: "AWS/SQS",
      Dimensions: [{ Name: "QueueName", Value: { "Fn::GetAtt": [id(stack.failureQueue), "QueueName"] } }],
      Statistic: "Sum",
      Period: 300,
      Threshold: 0,
      ComparisonOperator: "GreaterThanThreshold",
      EvaluationPeriods: 1,
      TreatMissingData: "notBreaching",
    });
    expect(alarmOn("NumberOfMessagesSent").AlarmDescription).toMatch(/projector or the log sequencer/);
    // Both consumers' failures go to that one queue.
    const destinations = (
      Object.values(template.findResources("AWS::Lambda::EventSourceMapping")) as Json[]
    ).map((m) => m.Properties.DestinationConfig?.OnFailure?.Destination);
    expect(destinations).toEqual([
      { "Fn::GetAtt": [id(stack.failureQueue), "Arn"] },
      { "Fn::GetAtt": [id(stack.failureQueue), "Arn"] },
    ]);
  });

  it("raises an alarm when the projector throws", () => {
    expect(alarmOn("Errors", { Ref: id(stack.projector.function) })).toMatchObject({
      Namespace: "AWS/Lambda",
      Dimensions: [{ Name: "FunctionName", Value: { Ref: id(stack.projector.function) } }],
      Threshold: 0,
      ComparisonOperator: "GreaterThanThreshold",
    });
  });

  it("raises an alarm when views lag the events by more than five minutes", () => {
    expect(alarmOn("IteratorAge", { Ref: id(stack.projector.function) })).toMatchObject({
      Namespace: "AWS/Lambda",
      Dimensions: [{ Name: "FunctionName", Value: { Ref: id(stack.projector.function) } }],
      Statistic: "Maximum",
      Threshold: 300_000,
      ComparisonOperator: "GreaterThanThreshold",
    });
  });

  it("raises an alarm on API 5xx answers", () => {
    expect(alarmOn("5xx")).toMatchObject({
      Namespace: "AWS/ApiGateway",
      Dimensions: [{ Name: "ApiId", Value: { Ref: id(stack.httpApi) } }],
      Threshold: 0,
      ComparisonOperator: "GreaterThanThreshold",
    });
  });

  it("raises an alarm when an export build fails", () => {
    expect(alarmOn("Errors", { Ref: id(stack.exportHandOff.builder.function) })).toMatchObject({
      Namespace: "AWS/Lambda",
      Threshold: 0,
      ComparisonOperator: "GreaterThanThreshold",
    });
  });

  it("sends every alarm to the alarm topic", () => {
    // Five here, five of the transparency log's (test/log/transparency-stack.test.ts), three on
    // the view-repair sweep (test/infra/view-repair.test.ts), two on evidence
    // (test/infra/evidence-bucket.test.ts); a sixth of the log's with a TSA
    // (test/log/trusted-time-stack.test.ts).
    expect(alarms()).toHaveLength(15);
    for (const alarm of alarms()) expect(alarm.Properties.AlarmActions).toEqual([{ Ref: topic() }]);
  });
});

describe("outputs", () => {
  it("names the API URL, the writer pool, every retained table and the evidence bucket", () => {
    const outputs = template.toJSON().Outputs as Record<string, Json>;
    for (const name of [
      "ApiUrl",
      "UserPoolId",
      "UserPoolClientId",
      "EventsTableName",
      "ClaimsTableName",
      "ViewsTableName",
      "SearchTableName",
      "LogTableName",
      "EvidenceBucketName",
      "ProjectorFailureQueueUrl",
    ]) {
      expect(outputs).toHaveProperty(name);
    }
    expect(outputs.EventsTableName.Value).toEqual({ Ref: id(stack.eventsTable) });
    expect(outputs.SearchTableName.Value).toEqual({ Ref: id(stack.searchTable) });
    expect(outputs.EvidenceBucketName.Value).toEqual({ Ref: id(stack.evidence.bucket) });
    // Every retained table is named by an output (the tear-down deletes them by these names).
    const named = new Set(Object.values(outputs).map((o) => JSON.stringify(o.Value)));
    const retained = Object.entries(template.findResources("AWS::DynamoDB::Table") as Record<string, Json>)
      .filter(([, table]) => table.DeletionPolicy === "Retain")
      .map(([logicalId]) => logicalId);
    expect(retained).toHaveLength(7);
    for (const table of retained) expect(named.has(JSON.stringify({ Ref: table })), table).toBe(true);
  });
});

describe("the log's origin (CDK context logOrigin)", () => {
  it("is required: a deploy without it fails to synthesize, naming the context key and how to give it", () => {
    expect(() =>
      createLedgerApp({ context: { "aws:cdk:bundling-stacks": [] }, builtinCloudFormationValidation: false }),
    ).toThrow(/"logOrigin" is required.*-c logOrigin=/s);
    expect(() => synthLedger({ logOrigin: "" })).toThrow(/logOrigin/);
  });

  it("is the one given, on the key and in the functions' environment", () => {
    const { stack: other, template: otherTemplate } = synthLedger({ logOrigin: "ledger.example.org/log" });
    const lid = (construct: IConstruct) => other.getLogicalId(construct.node.defaultChild as CfnElement);
    const resources = otherTemplate.toJSON().Resources as Record<string, Json>;
    for (const fn of [other.transparencyLog.sequencer.function, other.data.function, other.pages.function])
      expect(resources[lid(fn)].Properties.Environment.Variables.LEDGER_LOG_ORIGIN).toBe(
        "ledger.example.org/log",
      );
    expect(resources[lid(other.transparencyLog.signingKey)].Properties.Description).toContain(
      "ledger.example.org/log",
    );
  });
});

describe("an existing OIDC issuer for writers (CDK context)", () => {
  it("trusts it instead of creating a user pool", () => {
    const { template: withIssuer } = synthLedger({
      jwtIssuer: "https://issuer.example.org/",
      jwtAudience: "ledger-writers, ledger-cli",
    });
    withIssuer.resourceCountIs("AWS::Cognito::UserPool", 0);
    withIssuer.hasResourceProperties("AWS::ApiGatewayV2::Authorizer", {
      AuthorizerType: "JWT",
      JwtConfiguration: { Issuer: "https://issuer.example.org/", Audience: ["ledger-writers", "ledger-cli"] },
    });
    const outputs = withIssuer.toJSON().Outputs as Record<string, Json>;
    expect(outputs).not.toHaveProperty("UserPoolId");
    expect(outputs).toHaveProperty("ApiUrl");
  });

  it("refuses an issuer without an audience", () => {
    expect(() => synthLedger({ jwtIssuer: "https://issuer.example.org/" })).toThrow(/jwtAudience/);
  });
});
