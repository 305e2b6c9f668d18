import { Duration, RemovalPolicy, Validations } from "aws-cdk-lib";
import * as cognito from "aws-cdk-lib/aws-cognito";
import { Construct } from "constructs";

/** Who may write: the JWT issuer and audiences the write route's authorizer trusts. */
export interface WriterIdentity {
  readonly issuer: string;
  readonly audience: string[];
  /** Present when the stack created the user pool itself. */
  readonly created?: { readonly userPool: cognito.UserPool; readonly client: cognito.UserPoolClient };
}

/**
 * The writers' issuer from CDK context (`-c jwtIssuer=https://… -c jwtAudience=a,b`), or
 * undefined when neither is given. One without the other is a mistake we refuse to guess about.
 */
export function writerIdentityFromContext(scope: Construct): WriterIdentity | undefined {
  const issuer = scope.node.tryGetContext("jwtIssuer") as string | undefined;
  const rawAudience = scope.node.tryGetContext("jwtAudience") as string | string[] | undefined;
  if (!issuer && !rawAudience) return undefined;
  const audience = (Array.isArray(rawAudience) ? rawAudience : (rawAudience ?? "").split(","))
    .map((a) => a.trim())
    .filter((a) => a.length > 0);
  if (!issuer || audience.length === 0) {
    throw new Error(
      "Give both jwtIssuer and jwtAudience in CDK context, or neither (then a Cognito user pool is created).",
    );
  }
  if (!issuer.startsWith("https://")) throw new Error(`jwtIssuer must be an https URL, got ${issuer}`);
  return { issuer, audience };
}

/**
 * A Cognito user pool for writers, made when no issuer is given. Writers are created by an
 * administrator (no self sign-up) and sign in with email and password to get an ID token,
 * whose `aud` is the app client: that is what the JWT authorizer checks.
 */
export class WriterPool extends Construct {
  readonly identity: WriterIdentity;

  constructor(scope: Construct, id: string) {
    super(scope, id);

    const userPool = new cognito.UserPool(this, "UserPool", {
      selfSignUpEnabled: false,
      signInAliases: { email: true },
      standardAttributes: { email: { required: true, mutable: true } },
      passwordPolicy: {
        minLength: 12,
        requireLowercase: true,
        requireUppercase: true,
        requireDigits: true,
        requireSymbols: true,
        tempPasswordValidity: Duration.days(3),
      },
      mfa: cognito.Mfa.OPTIONAL,
      mfaSecondFactor: { otp: true, sms: false },
      accountRecovery: cognito.AccountRecovery.EMAIL_ONLY,
      featurePlan: cognito.FeaturePlan.ESSENTIALS,
      // Stored events name their writers by this pool's `sub`s: keep the pool with the data.
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(userPool).acknowledge({
      id: "AwsSolutions-COG2",
      reason:
        "MFA is optional (TOTP) rather than required so that scripted writers can sign in with " +
        "USER_PASSWORD_AUTH; accounts exist only when an administrator creates them.",
    });
    Validations.of(userPool).acknowledge({
      id: "AwsSolutions-COG8",
      reason:
        "The pool holds a handful of administrator-created writers with no self sign-up; the " +
        "Plus tier's threat protection is priced per active user and buys little here.",
    });

    const client = userPool.addClient("WriterClient", {
      // A CLI or script holds no secret; SRP for SDK clients, USER_PASSWORD_AUTH for curl users.
      generateSecret: false,
      authFlows: { userPassword: true, userSrp: true },
      // No hosted UI: tokens come from InitiateAuth.
      disableOAuth: true,
      preventUserExistenceErrors: true,
      idTokenValidity: Duration.hours(1),
    });

    this.identity = {
      issuer: userPool.userPoolProviderUrl,
      audience: [client.userPoolClientId],
      created: { userPool, client },
    };
  }
}
