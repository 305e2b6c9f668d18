import type { CfnElement } from "aws-cdk-lib";
import { Match, type Template } from "aws-cdk-lib/assertions";
import type { IConstruct } from "constructs";
import { beforeAll, describe, expect, it } from "vitest";
import { DESK_GET_PATHS, DESK_POST_PATHS, DESK_UPLOAD_MAX } from "../../infra/desk.js";
import type { LedgerStack } from "../../infra/ledger-stack.js";
import { actionsByResource, type Json, synthLedger } from "./synth.js";

/** The desk in the template: groups, managed login, the app client, the session key, routes, grants. */

let stack: LedgerStack;
let template: Template;
const id = (construct: IConstruct) => stack.getLogicalId(construct.node.defaultChild as CfnElement);

beforeAll(() => {
  ({ stack, template } = synthLedger());
});

describe("the desk in AWS", () => {
  it("makes the user pool's groups the roles", () => {
    const groups = Object.values(template.findResources("AWS::Cognito::UserPoolGroup")).map(
      (g: Json) => g.Properties.GroupName,
    );
    expect(groups.sort()).toEqual(["editor", "restricted-reader", "writer"]);
  });

  it("gives the pool a managed-login domain and a public app client for the code flow with PKCE", () => {
    template.hasResourceProperties("AWS::Cognito::UserPoolDomain", { ManagedLoginVersion: 2 });
    template.resourceCountIs("AWS::Cognito::ManagedLoginBranding", 1);
    const clients = Object.values(template.findResources("AWS::Cognito::UserPoolClient")) as Json[];
    const desk = clients.find((c) => c.Properties.AllowedOAuthFlows);
    expect(desk.Properties).toMatchObject({
      AllowedOAuthFlows: ["code"],
      AllowedOAuthFlowsUserPoolClient: true,
      GenerateSecret: false,
      SupportedIdentityProviders: ["COGNITO"],
      AllowedOAuthScopes: expect.arrayContaining(["openid", "email"]),
    });
    expect(JSON.stringify(desk.Properties.CallbackURLs)).toContain("/sign-in/callback");
    expect(JSON.stringify(desk.Properties.CallbackURLs)).toContain(id(stack.httpApi));
    expect(JSON.stringify(desk.Properties.LogoutURLs)).toContain("/sign-in");
    // No implicit flow, no password flows for the browser's client.
    expect(desk.Properties.AllowedOAuthFlows).not.toContain("implicit");
  });

  it("keeps the session key in Secrets Manager, readable by the pages Lambda alone", () => {
    const secret = id(stack.desk.sessionKey as IConstruct);
    template.hasResourceProperties("AWS::SecretsManager::Secret", {
      GenerateSecretString: Match.objectLike({ PasswordLength: 64 }),
    });
    const pages = actionsByResource(template, id(stack.pages.role));
    expect([...(pages.get(JSON.stringify({ Ref: secret })) ?? pages.get(secret) ?? [])].sort()).toEqual([
      "secretsmanager:DescribeSecret",
      "secretsmanager:GetSecretValue",
    ]);
    for (const role of [stack.api.role, stack.projector.role, stack.data.role]) {
      const actions = [...actionsByResource(template, id(role)).values()].flatMap((a) => [...a]);
      expect(actions.some((a) => a.startsWith("secretsmanager:"))).toBe(false);
    }
    const env = (template.toJSON().Resources[id(stack.pages.function)] as Json).Properties.Environment
      .Variables;
    expect(env.DESK_SESSION_SECRET_ARN).toEqual({ Ref: secret });
    expect(env.DESK_OIDC_CLIENT_ID).toEqual({ Ref: id(stack.desk.client as IConstruct) });
    expect(env.DESK_OIDC_ISSUER).toEqual({
      "Fn::GetAtt": [expect.stringMatching(/^WritersUserPool/), "ProviderURL"],
    });
    expect(JSON.stringify(env.DESK_OIDC_LOGOUT_URL)).toContain("/logout?client_id=");
  });

  it("lets the pages append as the API does: PutItem on events, never an update or delete of one", () => {
    const pages = actionsByResource(template, id(stack.pages.role));
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
  });

  it("keeps revoked sessions in a table of their own, gone by TTL; the pages may put and get an item, no more", () => {
    const table = id(stack.desk.revocations as IConstruct);
    template.hasResourceProperties("AWS::DynamoDB::Table", {
      KeySchema: [{ AttributeName: "sessionId", KeyType: "HASH" }],
      TimeToLiveSpecification: { AttributeName: "expiresAt", Enabled: true },
      BillingMode: "PAY_PER_REQUEST",
      SSESpecification: { SSEEnabled: true },
    });
    const pages = actionsByResource(template, id(stack.pages.role));
    expect([...(pages.get(table) ?? [])].sort()).toEqual(["dynamodb:GetItem", "dynamodb:PutItem"]);
    for (const role of [stack.api.role, stack.projector.role, stack.data.role])
      expect(actionsByResource(template, id(role)).get(table)).toBeUndefined();
    const env = (template.toJSON().Resources[id(stack.pages.function)] as Json).Properties.Environment
      .Variables;
    expect(env.DESK_SESSIONS_TABLE).toEqual({ Ref: table });
  });

  it("lets the pages name releases as POST /releases does: a PutItem under the release keys, and the builds' invoke", () => {
    const statements = Object.values(template.findResources("AWS::IAM::Policy") as Record<string, Json>)
      .filter((p) => p.Properties.Roles.some((r: Json) => r.Ref === id(stack.pages.role)))
      .flatMap((p) => p.Properties.PolicyDocument.Statement as Json[]);
    const log = id(stack.transparencyLog.table);
    const puts = statements.filter(
      (s) => [s.Action].flat().includes("dynamodb:PutItem") && JSON.stringify(s.Resource).includes(log),
    );
    expect(puts).toHaveLength(1);
    expect(puts[0]).toMatchObject({
      Action: "dynamodb:PutItem",
      Resource: { "Fn::GetAtt": [log, "Arn"] },
      Condition: { "ForAllValues:StringLike": { "dynamodb:LeadingKeys": ["release", "release#*"] } },
    });
    const invokes = statements.filter((s) => [s.Action].flat().includes("lambda:InvokeFunction"));
    expect(invokes).toEqual([
      expect.objectContaining({
        Resource: { "Fn::GetAtt": [id(stack.exportHandOff.builder.function), "Arn"] },
      }),
    ]);
    const env = (template.toJSON().Resources[id(stack.pages.function)] as Json).Properties.Environment
      .Variables;
    expect(env.EXPORT_BUILDER).toEqual({ Ref: id(stack.exportHandOff.builder.function) });
    // The evidence form's limit: what one Lambda request carries, base64-encoded.
    expect(env.LEDGER_EVIDENCE_MAX).toBe(String(DESK_UPLOAD_MAX));
    expect(Math.ceil((DESK_UPLOAD_MAX + 64 * 1024) / 3) * 4).toBeLessThan(6 * 1024 * 1024 - 64 * 1024);
  });

  it("routes the desk's pages and posts to the pages Lambda, without the API's JWT authorizer", () => {
    const resources: Json = template.toJSON().Resources;
    const routes = Object.values(resources).filter(
      (r: Json) => r.Type === "AWS::ApiGatewayV2::Route",
    ) as Json[];
    const desk = routes.filter((r) =>
      [...DESK_GET_PATHS.map((p) => `GET ${p}`), ...DESK_POST_PATHS.map((p) => `POST ${p}`)].includes(
        r.Properties.RouteKey,
      ),
    );
    expect(desk.map((r) => r.Properties.RouteKey).sort()).toEqual(
      [...DESK_GET_PATHS.map((p) => `GET ${p}`), ...DESK_POST_PATHS.map((p) => `POST ${p}`)].sort(),
    );
    for (const route of desk) {
      expect(route.Properties.AuthorizationType).toBe("NONE");
      const integration = route.Properties.Target["Fn::Join"][1][1].Ref as string;
      expect(resources[integration].Properties.IntegrationUri["Fn::GetAtt"][0]).toBe(
        id(stack.pages.function),
      );
    }
  });

  it("with another issuer, needs its client id; without one the pages stay read-only", () => {
    const other = { jwtIssuer: "https://issuer.example", jwtAudience: "api-client" };
    const bare = synthLedger(other);
    bare.template.resourceCountIs("AWS::SecretsManager::Secret", 0);
    bare.template.resourceCountIs("AWS::Cognito::UserPoolGroup", 0);
    const configured = synthLedger({ ...other, deskClientId: "desk-client", deskGroupsClaim: "roles" });
    configured.template.resourceCountIs("AWS::SecretsManager::Secret", 1);
    const env = (
      configured.template.toJSON().Resources[
        configured.stack.getLogicalId(configured.stack.pages.function.node.defaultChild as CfnElement)
      ] as Json
    ).Properties.Environment.Variables;
    expect(env).toMatchObject({
      DESK_OIDC_ISSUER: "https://issuer.example",
      DESK_OIDC_CLIENT_ID: "desk-client",
      DESK_OIDC_GROUPS_CLAIM: "roles",
    });
  });
});
