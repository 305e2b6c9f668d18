import { Aws, CfnOutput, Duration, Fn, Validations } from "aws-cdk-lib";
import { type HttpApi, HttpMethod, HttpNoneAuthorizer, type HttpRoute } from "aws-cdk-lib/aws-apigatewayv2";
import type { HttpLambdaIntegration } from "aws-cdk-lib/aws-apigatewayv2-integrations";
import * as cognito from "aws-cdk-lib/aws-cognito";
import type * as dynamodb from "aws-cdk-lib/aws-dynamodb";
import * as secretsmanager from "aws-cdk-lib/aws-secretsmanager";
import { Construct } from "constructs";
import { ROLES } from "../functions/http/auth.js";
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
] as const;
export const DESK_POST_PATHS = [
  "/sign-in",
  "/sign-out",
  "/desk/new",
  "/desk/incidents/{incidentId}/{form}",
] as const;

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
  readonly client?: cognito.UserPoolClient;
  readonly domain?: cognito.UserPoolDomain;
  readonly groups: cognito.UserPoolGroup[] = [];
  readonly routes: HttpRoute[] = [];
  /** Where the issuer sends people back to: the API's own URL. */
  readonly callbackUrl: string;

  constructor(scope: Construct, id: string, props: DeskProps) {
    super(scope, id);
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

    const fn = props.pages.function;
    fn.addEnvironment("DESK_OIDC_ISSUER", oidc.issuer);
    fn.addEnvironment("DESK_OIDC_CLIENT_ID", oidc.clientId);
    fn.addEnvironment("DESK_SESSION_SECRET_ARN", this.sessionKey.secretArn);
    if (oidc.logoutUrl) fn.addEnvironment("DESK_OIDC_LOGOUT_URL", oidc.logoutUrl);
    if (oidc.groupsClaim) fn.addEnvironment("DESK_OIDC_GROUPS_CLAIM", oidc.groupsClaim);

    // The desk's posts run the API's append: the API's grants on events and claims, no delete.
    grantTableActions(props.pages.role, props.eventsTable, ["dynamodb:PutItem"]);
    grantTableActions(props.pages.role, props.claimsTable, ["dynamodb:PutItem", "dynamodb:UpdateItem"]);
    // …and the sealing append's writes of disclosures (fresh ones in batches; the redactions).
    grantTableActions(props.pages.role, props.disclosuresTable, [
      "dynamodb:PutItem",
      "dynamodb:BatchWriteItem",
      "dynamodb:UpdateItem",
    ]);

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
}
