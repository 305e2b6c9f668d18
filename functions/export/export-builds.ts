import { InvokeCommand, LambdaClient } from "@aws-sdk/client-lambda";
import { EXPORT_NAMES, type ExportBuilds, type ExportName, isExportName } from "./export-files.js";

/** What the builder function is invoked with: one export of one tree size. */
export interface ExportBuildRequest {
  treeSize: number;
  name: ExportName;
}

/**
 * Starts the builder function once per export file, asynchronously (`InvocationType: Event`):
 * Lambda queues the request and answers at once, the build runs up to 15 minutes on its own,
 * and Lambda retries a failed one twice. Each file is its own invocation so each gets the
 * whole 15 minutes.
 */
export class LambdaExportBuilds implements ExportBuilds {
  constructor(
    private readonly lambda: LambdaClient,
    private readonly functionName: string,
  ) {}

  async start(treeSize: number): Promise<void> {
    await Promise.all(
      EXPORT_NAMES.map((name) =>
        this.lambda.send(
          new InvokeCommand({
            FunctionName: this.functionName,
            InvocationType: "Event",
            Payload: JSON.stringify({ treeSize, name } satisfies ExportBuildRequest),
          }),
        ),
      ),
    );
  }
}

/** In AWS the Lambda's role; in tests `LAMBDA_ENDPOINT` points at a local stand-in of the Invoke API. */
export function createLambdaClient(endpoint = process.env.LAMBDA_ENDPOINT): LambdaClient {
  return new LambdaClient(endpoint ? { endpoint } : {});
}

/** The builder's event, checked: it names a whole tree size and one of the export files. */
export function parseBuildRequest(event: unknown): ExportBuildRequest {
  const { treeSize, name } = (event ?? {}) as Partial<Record<keyof ExportBuildRequest, unknown>>;
  if (typeof treeSize !== "number" || !Number.isSafeInteger(treeSize) || !isExportName(name))
    throw new TypeError(`not a build request { treeSize, name }: ${JSON.stringify(event)}`);
  return { treeSize, name };
}
