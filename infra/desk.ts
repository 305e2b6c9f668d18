import { Aws, CfnOutput, Duration, Fn, RemovalPolicy, Validations } from "aws-cdk-lib";
import { type HttpApi, HttpMethod, HttpNoneAuthorizer, type HttpRoute } from "aws-cdk-lib/aws-apigatewayv2";
import type { HttpLambdaIntegration } from "aws-cdk-lib/aws-apigatewayv2-integrations";
import * as cognito from "aws-cdk-lib/aws-cognito";
import * as dynamodb from "aws-cdk-lib/aws-dynamodb";
import * as iam from "aws-cdk-lib/aws-iam";
import * as secretsmanager from "aws-cdk-lib/aws-secretsmanager";
import { Construct } from "constructs";
import { RELEASE_PK, releaseNameKey } from "../functions/export/release-store.js";
import { ROLES } from "../functions/http/auth.js";
import { UPLOAD_SCRIPT_PATH } from "../functions/http/desk/upload-script.js";
import { DESK_SESSIONS_KEYS, DESK_SESSIONS_TTL } from "../functions/store/table-design.js";
import type { EvidenceBucket } from "./evidence-bucket.js";
import type { LedgerFunction } from "./ledger-function.js";
import { grantTableActions } from "./table-access.js";
import type { WriterIdentity } from "./writers.js";

/** The desk's pages (functions/http/desk): read with GET, sent with POST, all by the pages Lambda. */
export const DESK_GET_PATHS = [
  "/sign-in",
  "/sign-in/callback",
  "/desk",
  "/desk/new",
  "/desk/incidents/{incidentId}/{form}",
  "/desk/release",
  "/desk/evidence/{sha256}",
  "/desk/bundle/{incidentId}/{eventId}",
  "/sign-out",
  UPLOAD_SCRIPT_PATH,
] as const;
export const DESK_POST_PATHS = [
  "/sign-in",
  "/sign-out",
  "/desk/new",
  "/desk/incidents/{incidentId}/{form}",
  "/desk/release",
] as const;

/**
 * The largest file the desk's form takes in AWS: a Lambda request holds 6 MB, and API Gateway
 * sends a form's bytes base64-encoded (4/3 as many). Larger files go through POST /evidence/uploads.
 */
export const DESK_UPLOAD_MAX = 4 * 1024 * 1024;

export interface DeskProps {
  writers: WriterIdentity;
  pages: LedgerFunction;
  httpApi: HttpApi;
  pagesIntegration: HttpLambdaIntegration;
  eventsTable: dynamodb.ITable;
  claimsTable: dynamodb.ITable;
  /** The sealed values (infra/people-tables.ts): the append writes them before the event. */
  disclosuresTable: dynamodb.ITable;
}

/**
 * Writing from a browser in AWS: the user pool's groups are the roles; its managed login (on a
 * domain made here) signs people in for a public app client (authorization code + PKCE, no
 * secret); the pages Lambda exchanges the code, verifies the ID token, and keeps the session in
 * a cookie signed with a key from Secrets Manager. Its posts append through the API's own route
 * code, so it is granted what the API is granted on the events and claims tables, no more.
 *
 * With another issuer (`-c jwtIssuer=…`), the desk needs `-c deskClientId=…` (an app client of
 * that issuer with the callback URL below), and optionally `-c deskGroupsClaim=…` and
 * `-c deskLogoutUrl=…`; without a client id the pages stay read-only.
 */
export class Desk extends Construct {
  readonly sessionKey?: secretsmanager.Secret;
  /** The sessions ended by sign-out, until their expiry (functions/http/desk/session-revocations.ts). */
  readonly revocations?: dynamodb.Table;
  private readonly pages: LedgerFunction;
  readonly client?: cognito.UserPoolClient;
  readonly domain?: cognito.UserPoolDomain;
  readonly groups: cognito.UserPoolGroup[] = [];
  readonly routes: HttpRoute[] = [];
  /** Where the issuer sends people back to: the API's own URL. */
  readonly callbackUrl: string;

  constructor(scope: Construct, id: string, props: DeskProps) {
    super(scope, id);
    this.pages = props.pages;
    const base = props.httpApi.apiEndpoint;
    this.callbackUrl = `${base}/sign-in/callback`;
    const extraOrigin = this.node.tryGetContext("deskOrigin") as string | undefined;
    const callbackUrls = [this.callbackUrl, ...(extraOrigin ? [`${extraOrigin}/sign-in/callback`] : [])];
    const signedOutUrls = [`${base}/sign-in`, ...(extraOrigin ? [`${extraOrigin}/sign-in`] : [])];

    let oidc: { issuer: string; clientId: string; logoutUrl?: string; groupsClaim?: string } | undefined;
    const pool = props.writers.created?.userPool;
    if (pool) {
      for (const role of ROLES)
        this.groups.push(
          pool.addGroup(`Group-${role}`, {
            groupName: role,
            description: `incident-ledger ${role}s (CONTRACT.md "Roles")`,
          }),
        );
      this.domain = pool.addDomain("SignInDomain", {
        cognitoDomain: {
          domainPrefix:
            (this.node.tryGetContext("deskDomainPrefix") as string | undefined) ??
            Fn.join("-", ["ledger-desk", Aws.ACCOUNT_ID]),
        },
        managedLoginVersion: cognito.ManagedLoginVersion.NEWER_MANAGED_LOGIN,
      });
      this.client = pool.addClient("DeskClient", {
        // A browser's sign-in: the code flow with PKCE; the Lambda holds no client secret.
        generateSecret: false,
        authFlows: {},
        oAuth: {
          flows: { authorizationCodeGrant: true },
          scopes: [cognito.OAuthScope.OPENID, cognito.OAuthScope.EMAIL, cognito.OAuthScope.PROFILE],
          callbackUrls,
          logoutUrls: signedOutUrls,
        },
        supportedIdentityProviders: [cognito.UserPoolClientIdentityProvider.COGNITO],
        preventUserExistenceErrors: true,
        idTokenValidity: Duration.hours(1),
        accessTokenValidity: Duration.hours(1),
        refreshTokenValidity: Duration.hours(12),
      });
      new cognito.CfnManagedLoginBranding(this, "ManagedLogin", {
        userPoolId: pool.userPoolId,
        clientId: this.client.userPoolClientId,
        useCognitoProvidedValues: true,
      });
      oidc = {
        issuer: pool.userPoolProviderUrl,
        clientId: this.client.userPoolClientId,
        logoutUrl: Fn.join("", [
          this.domain.baseUrl(),
          "/logout?client_id=",
          this.client.userPoolClientId,
          "&logout_uri=",
          signedOutUrls[0] as string,
        ]),
      };
    } else {
      const clientId = this.node.tryGetContext("deskClientId") as string | undefined;
      if (clientId) {
        const logoutUrl = this.node.tryGetContext("deskLogoutUrl") as string | undefined;
        const groupsClaim = this.node.tryGetContext("deskGroupsClaim") as string | undefined;
        oidc = {
          issuer: props.writers.issuer,
          clientId,
          ...(logoutUrl ? { logoutUrl } : {}),
          ...(groupsClaim ? { groupsClaim } : {}),
        };
      }
    }
    if (!oidc) return;
    new CfnOutput(this, "SignInUrl", {
      value: `${base}/sign-in`,
      description: "Where writers sign in to the desk from a browser",
    });

    this.sessionKey = new secretsmanager.Secret(this, "SessionKey", {
      description:
        "incident-ledger desk: the key session cookies are signed with (changing it ends every session)",
      generateSecretString: { passwordLength: 64, excludePunctuation: true, includeSpace: false },
    });
    Validations.of(this.sessionKey).acknowledge({
      id: "AwsSolutions-SMG4",
      reason:
        "The key only signs 12-hour session cookies; rotating it ends every session, which an " +
        "administrator does by hand (a new version) when a key may have leaked.",
    });
    this.sessionKey.grantRead(props.pages.role);

    // Sign-out revokes the session: one item per ended session, gone by TTL after its expiry.
    this.revocations = new dynamodb.Table(this, "SessionRevocations", {
      partitionKey: { name: DESK_SESSIONS_KEYS.partitionKey, type: dynamodb.AttributeType.STRING },
      timeToLiveAttribute: DESK_SESSIONS_TTL,
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      encryption: dynamodb.TableEncryption.AWS_MANAGED,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    Validations.of(this.revocations).acknowledge({
      id: "AwsSolutions-DDB3",
      reason:
        "Each item lives at most 12 hours (a session's life) and only ends a session early: a " +
        "restore would bring back nothing worth keeping.",
    });

    const fn = props.pages.function;
    fn.addEnvironment("DESK_OIDC_ISSUER", oidc.issuer);
    fn.addEnvironment("DESK_OIDC_CLIENT_ID", oidc.clientId);
    fn.addEnvironment("DESK_SESSION_SECRET_ARN", this.sessionKey.secretArn);
    fn.addEnvironment("DESK_SESSIONS_TABLE", this.revocations.tableName);
    // A sign-out puts its record; every signed-in request gets it. No update, no delete (TTL does).
    grantTableActions(props.pages.role, this.revocations, ["dynamodb:PutItem", "dynamodb:GetItem"]);
    if (oidc.logoutUrl) fn.addEnvironment("DESK_OIDC_LOGOUT_URL", oidc.logoutUrl);
    if (oidc.groupsClaim) fn.addEnvironment("DESK_OIDC_GROUPS_CLAIM", oidc.groupsClaim);

    // The desk's posts run the API's append: the API's grants on events and claims, no delete.
    grantTableActions(props.pages.role, props.eventsTable, ["dynamodb:PutItem"]);
    grantTableActions(props.pages.role, props.claimsTable, [
      "dynamodb:BatchGetItem",
      "dynamodb:PutItem",
      "dynamodb:UpdateItem",
    ]);
    // …and the sealing append's writes of disclosures (fresh packs; the redactions, infra/people-tables.ts).
    grantTableActions(props.pages.role, props.disclosuresTable, ["dynamodb:PutItem", "dynamodb:UpdateItem"]);

    for (const [paths, method] of [
      [DESK_GET_PATHS, HttpMethod.GET],
      [DESK_POST_PATHS, HttpMethod.POST],
    ] as const)
      for (const path of paths)
        this.routes.push(
          ...props.httpApi.addRoutes({
            path,
            methods: [method],
            integration: props.pagesIntegration,
            authorizer: new HttpNoneAuthorizer(),
          }),
        );
    for (const route of this.routes)
      Validations.of(route).acknowledge({
        id: "AwsSolutions-APIG4",
        reason:
          "The desk's pages sign people in themselves: each post needs the session cookie the " +
          "pages Lambda signed, its anti-forgery token and a same-origin request, or it is refused.",
      });
  }

  /**
   * Releases named at the desk (an editor's form), in AWS as locally: the release store's
   * conditional PutItem on the log table, under the release keys only (never a leaf, tile or
   * checkpoint), and the invoke that starts the release's export builds, as POST /releases does.
   */
  grantReleases(logTable: dynamodb.ITable, builder: LedgerFunction): void {
    if (!this.sessionKey) return;
    this.pages.role.addToPolicy(
      new iam.PolicyStatement({
        actions: ["dynamodb:PutItem"],
        resources: [logTable.tableArn],
        conditions: {
          "ForAllValues:StringLike": { "dynamodb:LeadingKeys": [RELEASE_PK, releaseNameKey("*")] },
        },
      }),
    );
    this.pages.role.addToPolicy(
      new iam.PolicyStatement({
        actions: ["lambda:InvokeFunction"],
        resources: [builder.function.functionArn],
      }),
    );
    this.pages.function.addEnvironment("EXPORT_BUILDER", builder.function.functionName);
  }

  /**
   * The evidence form in AWS: the pages put a chosen file's bytes as the API does (the bucket's
   * writer grant), up to what one Lambda request can carry once API Gateway has base64-encoded it.
   */
  grantUploads(evidence: EvidenceBucket): void {
    if (!this.sessionKey) return;
    evidence.grantWrite(this.pages);
    this.pages.function.addEnvironment("LEDGER_EVIDENCE_MAX", String(DESK_UPLOAD_MAX));
  }
}
