import { randomUUID } from "node:crypto";
import type { AttributeValue } from "@aws-sdk/client-dynamodb";
import type {
  APIGatewayProxyEventV2,
  APIGatewayProxyEventV2WithJWTAuthorizer,
  DynamoDBRecord,
  DynamoDBStreamEvent,
} from "aws-lambda";

/**
 * The event shapes AWS hands our Lambdas, built by hand from the AWS documentation's
 * examples: API Gateway HTTP API (payload format 2.0, JWT authorizer) and DynamoDB Streams.
 */

export const REGION = "eu-central-1";
const ACCOUNT = "123456789012";
const API_ID = "a1b2c3d4e5";
const DOMAIN = `${API_ID}.execute-api.${REGION}.amazonaws.com`;

export interface HttpRequest {
  method: "GET" | "POST";
  /** The route as declared in the stack, e.g. `/incidents/{incidentId}`. */
  route: string;
  path: string;
  query?: Record<string, string>;
  body?: unknown;
  /** The verified claims API Gateway's JWT authorizer passes on; absent for public reads. */
  claims?: Record<string, string>;
  headers?: Record<string, string>;
}

export function httpApiEvent(
  request: HttpRequest,
): APIGatewayProxyEventV2 | APIGatewayProxyEventV2WithJWTAuthorizer {
  const now = new Date();
  const query = new URLSearchParams(request.query ?? {});
  const routeKey = `${request.method} ${request.route}`;
  const body = request.body === undefined ? undefined : JSON.stringify(request.body);
  return {
    version: "2.0",
    routeKey,
    rawPath: request.path,
    rawQueryString: query.toString(),
    cookies: undefined,
    headers: {
      accept: "application/json",
      host: DOMAIN,
      "user-agent": "curl/8.5.0",
      "x-amzn-trace-id": `Root=1-${Math.floor(now.getTime() / 1000).toString(16)}-${randomUUID().replaceAll("-", "").slice(0, 24)}`,
      "x-forwarded-for": "203.0.113.7",
      "x-forwarded-port": "443",
      "x-forwarded-proto": "https",
      ...(body === undefined
        ? {}
        : { "content-type": "application/json", "content-length": String(Buffer.byteLength(body)) }),
      ...(request.claims ? { authorization: "Bearer eyJraWQiOi.redacted.signature" } : {}),
      ...request.headers,
    },
    queryStringParameters:
      request.query && Object.keys(request.query).length > 0 ? { ...request.query } : undefined,
    pathParameters: pathParameters(request.route, request.path),
    stageVariables: undefined,
    requestContext: {
      accountId: ACCOUNT,
      apiId: API_ID,
      domainName: DOMAIN,
      domainPrefix: API_ID,
      http: {
        method: request.method,
        path: request.path,
        protocol: "HTTP/1.1",
        sourceIp: "203.0.113.7",
        userAgent: "curl/8.5.0",
      },
      requestId: randomUUID(),
      routeKey,
      stage: "$default",
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
      // Public routes (authorization NONE) carry no `authorizer` at all.
      ...(request.claims
        ? {
            authorizer: {
              principalId: "",
              integrationLatency: 0,
              jwt: { claims: request.claims, scopes: [] },
            },
          }
        : {}),
    },
    body,
    isBase64Encoded: false,
  };
}

/**
 * A Lambda function URL request: the same payload format 2.0 as the HTTP API's, but routed by
 * no route (`routeKey` "$default", no path parameters) and addressed to the URL's own domain.
 */
export function functionUrlEvent(request: Omit<HttpRequest, "route" | "claims">): APIGatewayProxyEventV2 {
  const urlId = "a1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6";
  const domain = `${urlId}.lambda-url.${REGION}.on.aws`;
  const event = httpApiEvent({ ...request, route: "$default" }) as APIGatewayProxyEventV2;
  return {
    ...event,
    routeKey: "$default",
    headers: { ...event.headers, host: domain },
    pathParameters: undefined,
    requestContext: {
      ...event.requestContext,
      apiId: urlId,
      domainName: domain,
      domainPrefix: urlId,
      routeKey: "$default",
    },
  };
}

function pathParameters(route: string, path: string): Record<string, string> | undefined {
  const names = route.split("/");
  const values = path.split("/");
  const out: Record<string, string> = {};
  names.forEach((name, i) => {
    const match = /^\{(\w+)\+?\}$/.exec(name);
    if (match?.[1]) out[match[1]] = decodeURIComponent(values.slice(i).join("/"));
  });
  return Object.keys(out).length > 0 ? out : undefined;
}

let sequence = 4_000_000_000_000_000_000n;

/** The INSERT record DynamoDB Streams (view type NEW_IMAGE) emits for an item put in `table`. */
export function streamInsert(
  table: string,
  keys: Record<string, AttributeValue>,
  image: Record<string, AttributeValue>,
): DynamoDBRecord {
  sequence += 100n;
  return {
    eventID: randomUUID().replaceAll("-", ""),
    eventName: "INSERT",
    eventVersion: "1.1",
    eventSource: "aws:dynamodb",
    awsRegion: REGION,
    dynamodb: {
      ApproximateCreationDateTime: Math.floor(Date.now() / 1000),
      // The SDK's AttributeValue and aws-lambda's are the same wire format, typed twice.
      Keys: keys as never,
      NewImage: image as never,
      SequenceNumber: sequence.toString(),
      SizeBytes: Buffer.byteLength(JSON.stringify(image)),
      StreamViewType: "NEW_IMAGE",
    },
    eventSourceARN: `arn:aws:dynamodb:${REGION}:${ACCOUNT}:table/${table}/stream/2026-01-01T00:00:00.000`,
  };
}

export function streamEvent(records: DynamoDBRecord[]): DynamoDBStreamEvent {
  return { Records: records };
}

/**
 * Does `value` pass a Lambda event filter `pattern`? Enough of the filter grammar for the
 * patterns this stack uses: nested objects whose leaves list the allowed values.
 */
export function matchesFilter(pattern: unknown, value: unknown): boolean {
  if (Array.isArray(pattern)) return pattern.includes(value);
  if (pattern === null || typeof pattern !== "object") return false;
  if (value === null || typeof value !== "object") return false;
  return Object.entries(pattern).every(([key, inner]) =>
    matchesFilter(inner, (value as Record<string, unknown>)[key]),
  );
}
