import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A stand-in for the Lambda service's Invoke API on loopback, written from AWS's API reference
 * ("Invoke": `POST /2015-03-31/functions/{FunctionName}/invocations`, the invocation type in
 * `X-Amz-Invocation-Type`, the payload as the body; an `Event` invocation is queued and answered
 * `202` with no body, an unknown function `404` `ResourceNotFoundException`). The SDK's real
 * LambdaClient calls it over HTTP (`LAMBDA_ENDPOINT`); each queued event then runs the handler
 * it names, as Lambda would run the deployed bundle, after the answer was sent.
 */
export interface Invocation {
  functionName: string;
  invocationType: string;
  payload: unknown;
  /** The handler's run, settled with its result or its error. */
  run: Promise<{ result?: unknown; error?: Error }>;
}

export interface LambdaInvokeEndpoint {
  url: string;
  invocations: Invocation[];
  /** Answer the next N invocations 500 ServiceException (Lambda unavailable), queueing nothing. */
  failNext(count: number): void;
  close(): Promise<void>;
}

const PATH = /^\/2015-03-31\/functions\/([^/]+)\/invocations$/;

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

export async function startLambdaInvokeEndpoint(
  handlers: Record<string, (event: unknown) => Promise<unknown>>,
): Promise<LambdaInvokeEndpoint> {
  const invocations: Invocation[] = [];
  let failures = 0;
  const server: Server = createServer(async (request, response) => {
    const body = await readBody(request);
    const match = PATH.exec(new URL(request.url ?? "/", "http://localhost").pathname);
    const functionName = decodeURIComponent(match?.[1] ?? "");
    const reply = (status: number, type?: string, message?: string) => {
      response.writeHead(status, {
        "content-type": "application/json",
        "x-amzn-requestid": `stand-in-${invocations.length}`,
        ...(type ? { "x-amzn-errortype": type } : {}),
      });
      response.end(type ? JSON.stringify({ Type: "User", message }) : "");
    };
    if (request.method !== "POST" || !match) return reply(404, "UnknownOperationException", "no such route");
    if (failures > 0) {
      failures -= 1;
      return reply(500, "ServiceException", "the Lambda service is unavailable (stand-in)");
    }
    const handler = handlers[functionName];
    if (!handler) return reply(404, "ResourceNotFoundException", `Function not found: ${functionName}`);
    const invocationType = String(request.headers["x-amz-invocation-type"] ?? "RequestResponse");
    if (invocationType !== "Event") return reply(400, "InvalidParameterValueException", "only Event here");
    const payload = JSON.parse(body || "null") as unknown;
    reply(202);
    const run = new Promise<void>((resolve) => setImmediate(resolve)).then(() =>
      handler(payload).then(
        (result) => ({ result }),
        (error: Error) => ({ error }),
      ),
    );
    invocations.push({ functionName, invocationType, payload, run });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    invocations,
    failNext(count) {
      failures = count;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
