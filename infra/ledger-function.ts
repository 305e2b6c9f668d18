import { type Duration, RemovalPolicy } from "aws-cdk-lib";
import * as iam from "aws-cdk-lib/aws-iam";
import * as lambda from "aws-cdk-lib/aws-lambda";
import { NodejsFunction } from "aws-cdk-lib/aws-lambda-nodejs";
import * as logs from "aws-cdk-lib/aws-logs";
import { Construct } from "constructs";
import { LAMBDA_BUNDLING } from "./bundling.js";
import { PROJECT_ROOT, projectPath } from "./paths.js";

export interface LedgerFunctionProps {
  /** The entry file, relative to the project root. */
  readonly entry: string;
  readonly description: string;
  readonly environment: Record<string, string>;
  readonly timeout: Duration;
  readonly memorySize: number;
  /** Caps concurrent runs (and so cost) where nothing in front of the function throttles it. */
  readonly reservedConcurrentExecutions?: number;
}

/**
 * One Lambda function with the defaults every function of the ledger shares, so the stack
 * only says what differs. Each function gets a role of its own with no managed policy:
 * the stack grants it table actions one by one, and this construct only lets it write to
 * its own log group.
 */
export class LedgerFunction extends Construct {
  readonly function: NodejsFunction;
  readonly role: iam.Role;
  readonly logGroup: logs.LogGroup;

  constructor(scope: Construct, id: string, props: LedgerFunctionProps) {
    super(scope, id);

    this.logGroup = new logs.LogGroup(this, "Logs", {
      retention: logs.RetentionDays.ONE_MONTH,
      // Operational logs, not evidence: the events table is the record. They go with the stack.
      removalPolicy: RemovalPolicy.DESTROY,
    });

    // Not AWSLambdaBasicExecutionRole: it may create any log group in the account.
    this.role = new iam.Role(this, "Role", {
      assumedBy: new iam.ServicePrincipal("lambda.amazonaws.com"),
      description: `${props.description} (execution role)`,
    });
    this.role.addToPolicy(
      new iam.PolicyStatement({
        actions: ["logs:CreateLogStream", "logs:PutLogEvents"],
        resources: [this.logGroup.logGroupArn],
      }),
    );

    this.function = new NodejsFunction(this, "Function", {
      entry: projectPath(props.entry),
      handler: "handler",
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: projectPath("package-lock.json"),
      description: props.description,
      // The newest Node.js runtime this aws-cdk-lib knows (cdk-nag's AwsSolutions-L1 asks for it).
      runtime: lambda.Runtime.NODEJS_24_X,
      // Graviton: about 20 % cheaper per GB-second than x86, and nothing here is native code.
      architecture: lambda.Architecture.ARM_64,
      memorySize: props.memorySize,
      timeout: props.timeout,
      ...(props.reservedConcurrentExecutions !== undefined
        ? { reservedConcurrentExecutions: props.reservedConcurrentExecutions }
        : {}),
      bundling: LAMBDA_BUNDLING,
      environment: {
        ...props.environment,
        // The bundle is minified; map stack traces back to the TypeScript sources.
        NODE_OPTIONS: "--enable-source-maps",
        LOG_LEVEL: "info",
      },
      role: this.role,
      logGroup: this.logGroup,
      loggingFormat: lambda.LoggingFormat.JSON,
      applicationLogLevelV2: lambda.ApplicationLogLevel.INFO,
      systemLogLevelV2: lambda.SystemLogLevel.WARN,
      tracing: lambda.Tracing.ACTIVE,
    });
  }
}
